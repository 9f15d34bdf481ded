import type { FastifyInstance } from 'fastify';

/**
 * The headers every response carries. Pages may not be framed (clickjacking
 * on the consent page): CSP frame-ancestors and X-Frame-Options DENY.
 * form-action stays open: Chromium applies it to the redirect that follows
 * the consent form, which goes to the client. X-XSS-Protection is "0"
 * because the old filter it switched on could itself be abused. HSTS only
 * when served over https (RFC 6797 §7.2: "An HSTS Host MUST NOT include the
 * STS header field in HTTP responses conveyed over non-secure transport").
 */
export function securityHeaders(https: boolean): Readonly<Record<string, string>> {
  return Object.freeze({
    'content-security-policy': "default-src 'none';style-src 'self';img-src 'self' data:;frame-ancestors 'none';base-uri 'none'",
    'cross-origin-opener-policy': 'same-origin',
    'origin-agent-cluster': '?1',
    'referrer-policy': 'no-referrer',
    ...(https ? { 'strict-transport-security': 'max-age=31536000; includeSubDomains' } : {}),
    'x-content-type-options': 'nosniff',
    'x-dns-prefetch-control': 'off',
    'x-download-options': 'noopen',
    'x-frame-options': 'DENY',
    'x-permitted-cross-domain-policies': 'none',
    'x-xss-protection': '0',
  });
}

/**
 * Every response carries the security headers; a route may still set its own
 * value for one of them. Set as the request arrives rather than as the reply
 * is sent, so an answer that ends early (a refusal in an onRequest hook)
 * holds them too.
 */
export function registerSecurityHeaders(app: FastifyInstance, https: boolean): void {
  const headers = securityHeaders(https);
  app.addHook('onRequest', async (_request, reply) => {
    reply.headers(headers);
  });
}
