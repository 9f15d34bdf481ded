import { hkdfSync } from 'node:crypto';
import csrf from '@fastify/csrf-protection';
import type { FastifyInstance, FastifyReply, FastifyRequest, preValidationHookHandler } from 'fastify';
import type { Config } from '../config/index.ts';
import { resolveKeysSecret } from '../keys/keys-secret.ts';
import { sameOriginOnly } from './same-origin.ts';
import { cookieOptions, csrfCookieName, sessionCookieName } from './interaction/session.ts';

/** What a token is bound to when the browser holds no session cookie yet (the sign-in form). */
const NO_SESSION = 'no-session';

/**
 * The form token is bound to the session the request is made with: HMAC, with
 * a server-side key, of the session cookie's value. A page on another port of
 * the same host can write a CSRF cookie of its own choosing (cookies are not
 * isolated by port), and can fetch a valid cookie/token pair for itself; it can
 * do neither for the victim's session, which it cannot read (HttpOnly). It can
 * plant a session cookie of its own, so the binding must not be computable
 * from cookies alone: the key stays on the server. A token made before sign-in
 * (bound to no session) fails once a session exists, and the secret cookie is
 * dropped at sign-in and sign-out (interaction/session.ts) so a fresh one follows.
 */
function boundTo(config: Pick<Config, 'secureCookies' | 'issuer'>) {
  const sessionCookie = sessionCookieName(config);
  return (request: FastifyRequest): string => {
    const session = request.cookies[sessionCookie];
    return session ? `session:${session}` : NO_SESSION;
  };
}

/**
 * A key of its own for CSRF tokens, derived from KEYS_SECRET (HKDF, RFC 5869)
 * so every instance behind one database accepts the tokens of the others.
 */
function csrfKey(config: Pick<Config, 'keysSecret' | 'database'>): Buffer {
  return Buffer.from(hkdfSync('sha256', resolveKeysSecret(config), 'lyceum', 'csrf-token', 32));
}

/**
 * Protection of Lyceum's forms: an origin check, and the `_csrf` field, a
 * secret cookie plus a token bound to it and to the session.
 */
export async function registerCsrf(app: FastifyInstance, config: Config): Promise<void> {
  const userInfo = boundTo(config);
  await app.register(csrf, {
    cookieKey: csrfCookieName(config),
    cookieOpts: { ...cookieOptions(config), signed: false },
    getToken: (req) => (req.body as Record<string, string> | undefined)?._csrf,
    getUserInfo: userInfo,
    csrfOpts: { hmacKey: csrfKey(config) },
  });
  // The origin check first: a foreign page is refused whatever token it carries.
  app.decorate('formProtection', [sameOriginOnly(config), app.csrfProtection]);
  app.decorateReply('formToken', function (this: FastifyReply) {
    return this.generateCsrf({ userInfo: userInfo(this.request) });
  });
}

declare module 'fastify' {
  interface FastifyInstance {
    /** preValidation of every state-changing browser POST: same origin, then a session-bound token. */
    formProtection: preValidationHookHandler[];
  }
  interface FastifyReply {
    /** The `_csrf` value for a form on this page, bound to the request's session. */
    formToken(): string;
  }
}
