/**
 * One error type per OAuth error code. Each carries the HTTP status it maps to;
 * src/http/error-handler.ts is the one place that turns them into responses.
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'unsupported_token_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'access_denied'
  | 'login_required'
  | 'consent_required'
  | 'invalid_csrf'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'invalid_token'
  | 'insufficient_scope'
  | 'not_found'
  | 'conflict'
  | 'too_many_requests'
  | 'server_error';

const STATUS: Record<OAuthErrorCode, number> = {
  invalid_request: 400,
  // RFC 6749 §5.2: invalid_client "MAY return an HTTP 401 (Unauthorized)"; Lyceum always does.
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  unsupported_response_type: 400,
  unsupported_token_type: 400,
  invalid_scope: 400,
  invalid_target: 400,
  access_denied: 403,
  login_required: 400,
  consent_required: 400,
  invalid_csrf: 403,
  invalid_redirect_uri: 400,
  invalid_client_metadata: 400,
  invalid_token: 401,
  insufficient_scope: 403,
  not_found: 404,
  conflict: 409,
  too_many_requests: 429,
  server_error: 500,
};

export class OAuthError extends Error {
  override name = 'OAuthError';
  readonly status: number;
  /** Extra response headers, e.g. WWW-Authenticate. */
  headers: Record<string, string> = {};

  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
    status?: number,
  ) {
    super(`${code}: ${description}`);
    this.status = status ?? STATUS[code];
  }

  toJSON(): { error: string; error_description: string } {
    return { error: this.code, error_description: this.description };
  }
}

export const invalidRequest = (d: string) => new OAuthError('invalid_request', d);
export const invalidClient = (d: string) => new OAuthError('invalid_client', d);
export const invalidGrant = (d: string) => new OAuthError('invalid_grant', d);
export const invalidScope = (d: string) => new OAuthError('invalid_scope', d);
export const invalidTarget = (d: string) => new OAuthError('invalid_target', d);
