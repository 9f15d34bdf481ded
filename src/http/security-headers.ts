import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * Lyceum's policy. Pages may not be framed (clickjacking on the consent
 * page). form-action stays open: Chromium applies it to the redirect that
 * follows the consent form, which goes to the client. HSTS only when served
 * over https.
 */
export function securityPolicy(https: boolean): HelmetOptions {
  return {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
      },
    },
    frameguard: { action: 'deny' },
    hsts: https,
    crossOriginResourcePolicy: false,
  };
}

/**
 * The response headers helmet's middleware sets for `options`, read once by
 * running it against a recording response. The policy is helmet's; only its
 * application is ours: @fastify/helmet 13 builds the middleware again, CSP
 * parsing included, on every request, a large share of a small request's
 * time. Nothing in the set depends on the request (no CSP
 * nonces are used), so one copy serves every response.
 */
export function securityHeaders(options: HelmetOptions): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader(name: string, value: string | number | readonly string[]) {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, (err?: unknown) => {
    if (err) throw err;
  });
  return Object.freeze(headers);
}

/** Every response carries the security headers; a route may still set its own value for one of them. */
export function registerSecurityHeaders(app: FastifyInstance, options: HelmetOptions): void {
  const headers = securityHeaders(options);
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers);
    done();
  });
}
