import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { describeCause, HTTP_ERROR_STATUS, httpError, HttpError } from './http-error.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route answers people in a browser: errors become HTML pages. */
    html?: boolean;
  }
}

/**
 * The one place that maps errors to HTTP. HttpErrors (OAuth and platform errors
 * alike) keep their status and headers; framework errors below 500 become
 * `invalid_request` with the framework's own message as the logged detail;
 * anything else is a 500 `server_error` whose cause stays in the log, never
 * in the body.
 */
export function toHttpError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  const fe = err as Partial<FastifyError>;
  const status = typeof fe.statusCode === 'number' ? fe.statusCode : 500;
  if (fe.code === 'FST_CSRF_INVALID_TOKEN' || fe.code === 'FST_CSRF_MISSING_SECRET') {
    return httpError('invalid_csrf', 'The form expired or was not sent from this site. Go back, reload the page and try again.');
  }
  if (status === 429) return httpError('too_many_requests', 'Too many requests; slow down and retry later.');
  if (status >= 400 && status < 500) {
    return httpError('invalid_request', describeClientError(fe), status).withDetail(describeCause(err));
  }
  return httpError('server_error', 'The server could not complete the request.');
}

function describeClientError(fe: Partial<FastifyError>): string {
  switch (fe.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'The request body is too large.';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'Unsupported Content-Type.';
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return 'The body is not valid JSON.';
    case 'FST_ERR_VALIDATION':
      return `Invalid request: ${fe.message ?? 'bad input'}.`;
    default:
      if (fe instanceof SyntaxError) return 'The body is not valid JSON.';
      return 'The request is malformed.';
  }
}

/** Renders the HTML page a browser route answers an error with (web/pages/error.ts). */
export type ErrorPage = (code: string, description: string) => string;

export type SendError = (request: FastifyRequest, reply: FastifyReply, err: unknown) => FastifyReply;

/**
 * Writes what the log keeps of an error answered to a client: a failure with
 * its cause, a refusal with its detail. The detail never goes anywhere else.
 */
export function logError(log: FastifyBaseLogger, e: HttpError, err: unknown = e): void {
  // A database that is down or too slow is the operator's to see, but no bug: a warning, with the cause.
  if (e.status === HTTP_ERROR_STATUS.temporarily_unavailable) log.warn({ error: e.code, detail: e.detail }, 'request not served: database unavailable');
  else if (e.status >= 500) log.error({ err, detail: e.detail }, 'request failed');
  else if (e.detail !== undefined) log.info({ error: e.code, detail: e.detail }, 'request refused');
}

/**
 * The error sender: JSON on API routes, the given page on browser routes; the
 * detail only in the log. `fault` first names what a dependency's error means
 * (the store's: a database that cannot serve the request now is a 503).
 */
export function errorSender(page: ErrorPage, fault: (err: unknown) => unknown = (err) => err): SendError {
  return (request, reply, err) => {
    const e = toHttpError(fault(err));
    logError(request.log, e, err);
    reply.code(e.status).headers(e.headers);
    reply.header('cache-control', 'no-store');
    if (request.routeOptions.config?.html) {
      return reply.type('text/html; charset=utf-8').send(page(e.code, e.description));
    }
    return reply.type('application/json; charset=utf-8').send(e.toJSON());
  };
}

export function registerErrorHandling(app: FastifyInstance, sendError: SendError): void {
  app.setErrorHandler((err, request, reply) => sendError(request, reply, err));
  app.setNotFoundHandler((request, reply) => sendError(request, reply, httpError('not_found', `No resource at ${request.method} ${request.url.split('?')[0]}.`)));
}
