import type { FastifyRequest } from 'fastify';

/** Query parameters that may carry a credential; their values never reach the log. */
const SENSITIVE = /^(code|access_token|refresh_token|id_token|token|client_secret|password|code_verifier|_csrf)$/i;

export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  for (const key of [...params.keys()]) if (SENSITIVE.test(key)) params.set(key, '[redacted]');
  return `${url.slice(0, q)}?${params.toString()}`;
}

/** Request serializer for the logger: method, redacted URL, client address; never headers or bodies. */
export function serializeRequest(req: FastifyRequest) {
  return { method: req.method, url: redactUrl(req.url), remoteAddress: req.ip };
}
