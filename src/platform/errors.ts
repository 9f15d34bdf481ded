import { HTTP_ERROR_STATUS, HttpError } from '../http/errors/http-error.ts';

/**
 * The codes /api/v1 and the MCP tools answer with: the shared ones and the
 * platform's own. A missing scope is the bearer guard's `insufficient_scope`
 * (oauth/errors.ts), never a platform code.
 */
export const PLATFORM_ERROR_STATUS = {
  ...HTTP_ERROR_STATUS,
  /** A unique value is taken, or a record still has records that depend on it. */
  conflict: 409,
  /** An Idempotency-Key sent again with a different request body (src/platform/idempotency.ts). */
  idempotency_key_reused: 422,
  /** The first request with this Idempotency-Key is still running; retry after Retry-After. */
  idempotency_key_in_use: 409,
  /** The learner is not enrolled in the course of the lesson. */
  not_enrolled: 403,
  /** The learner's access to the course ended (the enrollment's access_expires_at has passed). */
  access_expired: 403,
  /** The learner's student record is suspended, or the course is still in draft: no lesson is open. */
  lesson_not_open: 403,
} as const;

export type PlatformErrorCode = keyof typeof PLATFORM_ERROR_STATUS;

/** An error of the platform's services and routes; the HTTP error handler answers it. */
export class PlatformError extends HttpError<PlatformErrorCode> {
  override name = 'PlatformError';

  constructor(code: PlatformErrorCode, description: string, status?: number) {
    super(code, description, status ?? PLATFORM_ERROR_STATUS[code]);
  }
}
