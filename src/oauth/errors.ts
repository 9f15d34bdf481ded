import { HTTP_ERROR_STATUS, HttpError, type HttpErrorCode } from '../http/errors/http-error.ts';

/**
 * The authorization server's and the bearer guard's codes (RFC 6749 §4.1.2.1 and
 * §5.2, RFC 6750 §3.1, RFC 7591 §3.2.2, RFC 8707, OIDC Core §3.1.2.6) on top of
 * the shared ones, and the device grant's (RFC 8628 §3.5). Each carries the HTTP status it maps to;
 * src/http/errors/error-handler.ts is the one place that turns them into responses.
 */
export type OAuthErrorCode =
  | HttpErrorCode
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
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'invalid_token'
  | 'insufficient_scope'
  | 'authorization_pending'
  | 'slow_down'
  | 'expired_token';

export const OAUTH_ERROR_STATUS: Record<OAuthErrorCode, number> = {
  ...HTTP_ERROR_STATUS,
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
  invalid_redirect_uri: 400,
  invalid_client_metadata: 400,
  invalid_token: 401,
  insufficient_scope: 403,
  // RFC 8628 §3.5: these "are returned using the same format as defined in Section 5.2 of [RFC6749]", which answers 400.
  authorization_pending: 400,
  slow_down: 400,
  expired_token: 400,
};

export class OAuthError extends HttpError<OAuthErrorCode> {
  override name = 'OAuthError';

  constructor(code: OAuthErrorCode, description: string, status?: number) {
    super(code, description, status ?? OAUTH_ERROR_STATUS[code]);
  }
}
