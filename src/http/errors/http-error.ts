/**
 * The codes any layer may answer with, the HTTP layer's own included (a form from
 * another site, an unknown path, a throttled or malformed request, a failure).
 * (temporarily_unavailable: the store hit one of its bounds or cannot be reached,
 * src/store/unavailable.ts.) Each layer adds its own on top: oauth/errors.ts the authorization server's,
 * platform/errors.ts the platform's.
 */
export const HTTP_ERROR_STATUS = {
  invalid_request: 400,
  invalid_csrf: 403,
  not_found: 404,
  too_many_requests: 429,
  server_error: 500,
  temporarily_unavailable: 503,
} as const;

export type HttpErrorCode = keyof typeof HTTP_ERROR_STATUS;

/**
 * An error that is answered as `{ "error", "error_description" }` with its status and
 * headers. error-handler.ts is the one place that turns it into a response; each layer
 * names its own codes on top of it (oauth/errors.ts, platform/errors.ts).
 *
 * `description` is what the client reads: fixed, safe wording. `detail` is for the
 * log only (the underlying cause, the shape of the offending value): the error
 * handler writes it to the log and never sends it. Neither ever holds a secret or
 * a token.
 */
export class HttpError<Code extends string = string> extends Error {
  override name = 'HttpError';
  /** Extra response headers, e.g. WWW-Authenticate or Retry-After. */
  headers: Record<string, string> = {};
  /** What the log says beyond the description; never sent. */
  detail: string | undefined;

  constructor(
    readonly code: Code,
    readonly description: string,
    readonly status: number,
  ) {
    super(`${code}: ${description}`);
  }

  /** Adds a detail for the log only (see the class comment); undefined adds none. */
  withDetail(detail: string | undefined): this {
    this.detail = detail;
    return this;
  }

  toJSON(): { error: string; error_description: string } {
    return { error: this.code, error_description: this.description };
  }
}

/** One of the shared codes, with its usual status unless one is given. */
export const httpError = (code: HttpErrorCode, description: string, status: number = HTTP_ERROR_STATUS[code]) => new HttpError(code, description, status);

/** A caught value as one line for an error's detail: its name, code and message, never its stack. */
export function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const code = (cause as { code?: unknown }).code;
  return `${cause.name}${typeof code === 'string' ? ` ${code}` : ''}: ${cause.message}`;
}
