import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { OAuthError } from '../oauth/errors.ts';
import { errorPage } from '../web/pages/error.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route answers people in a browser: errors become HTML pages. */
    html?: boolean;
  }
}

/**
 * The one place that maps errors to HTTP. OAuth errors keep their status and
 * headers; framework errors below 500 become `invalid_request`; anything else
 * is a 500 `server_error` whose detail stays in the log, never in the body.
 */
export function toOAuthError(err: unknown): OAuthError {
  if (err instanceof OAuthError) return err;
  const fe = err as Partial<FastifyError>;
  const status = typeof fe.statusCode === 'number' ? fe.statusCode : 500;
  if (fe.code === 'FST_CSRF_INVALID_TOKEN' || fe.code === 'FST_CSRF_MISSING_SECRET') {
    return new OAuthError('invalid_csrf', 'The form expired or was not sent from this site. Go back, reload the page and try again.');
  }
  if (status === 429) return new OAuthError('too_many_requests', 'Too many requests; slow down and retry later.');
  if (status >= 400 && status < 500) {
    return new OAuthError('invalid_request', describeClientError(fe), status);
  }
  return new OAuthError('server_error', 'The server could not complete the request.');
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
    default:
      if (fe.validation) return `Invalid request: ${fe.message ?? 'bad input'}.`;
      if (fe instanceof SyntaxError) return 'The body is not valid JSON.';
      return 'The request is malformed.';
  }
}

const TITLES: Record<string, string> = {
  invalid_csrf: 'Form not accepted',
  too_many_requests: 'Too many attempts',
  server_error: 'Something went wrong',
};

export function sendError(request: FastifyRequest, reply: FastifyReply, err: unknown): FastifyReply {
  const e = toOAuthError(err);
  if (e.status >= 500) request.log.error({ err }, 'request failed');
  reply.code(e.status).headers(e.headers);
  reply.header('cache-control', 'no-store');
  if (request.routeOptions.config?.html) {
    return reply.type('text/html; charset=utf-8').send(errorPage(TITLES[e.code] ?? 'This request cannot be completed', e.code, e.description));
  }
  return reply.type('application/json; charset=utf-8').send(e.toJSON());
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err, request, reply) => sendError(request, reply, err));
  app.setNotFoundHandler((request, reply) =>
    sendError(request, reply, new OAuthError('not_found', `No resource at ${request.method} ${request.url.split('?')[0]}.`)),
  );
}
