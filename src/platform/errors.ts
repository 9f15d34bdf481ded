import { HTTP_ERROR_STATUS, HttpError, type HttpErrorCode } from '../http/http-error.ts';

/**
 * The codes /api/v1 answers with: the shared ones, and insufficient_scope for a
 * record view the token's scopes do not open (RFC 6750 §3.1: "The request
 * requires higher privileges than provided by the access token", status 403).
 */
export type PlatformErrorCode = HttpErrorCode | 'insufficient_scope';

const STATUS: Record<PlatformErrorCode, number> = { ...HTTP_ERROR_STATUS, insufficient_scope: 403 };

/** An error of the platform's services and routes; the HTTP error handler answers it. */
export class PlatformError extends HttpError<PlatformErrorCode> {
  override name = 'PlatformError';

  constructor(code: PlatformErrorCode, description: string, status?: number) {
    super(code, description, status ?? STATUS[code]);
  }
}
