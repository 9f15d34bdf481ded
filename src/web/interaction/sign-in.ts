import { logActivity } from '../../activity/record.ts';
import type { FastifyInstance } from 'fastify';
import { paramOf, paramsOf } from '../../http/requests/params.ts';
import type { Deps } from '../../deps.ts';
import { rateLimitFor } from '../../http/requests/rate-limit.ts';
import { ENDPOINTS } from '../../oauth/endpoints.ts';
import { HIDDEN } from '../../oauth/schemas.ts';
import { verifyPassword } from '../../users/passwords.ts';
import { claimCheck, passwordRight, passwordWrong, tooManyFailures } from '../../users/sign-in-throttle.ts';
import { APPS_PATH } from '../connected-apps.ts';
import { signInPage } from '../pages/sign-in.ts';
import { WEB_PATHS } from './paths.ts';
import { startSession } from './session.ts';

const HTML = 'text/html; charset=utf-8';

/** GET and POST /oauth/sign-in: the password form, and the session it starts. */
export function registerSignInRoutes(app: FastifyInstance, deps: Deps): void {
  const html = { config: { html: true } };

  const signInLimit = { config: { ...html.config, rateLimit: rateLimitFor(deps.config, 'sign_in') } };
  app.post(WEB_PATHS.signIn, { ...signInLimit, schema: HIDDEN, preValidation: app.formProtection }, async (request, reply) => {
    const body = paramsOf(request.body);
    const email = typeof body.email === 'string' ? body.email.trim() : '';
    const password = typeof body.password === 'string' ? body.password : '';
    const returnTo = safeReturnTo(body.return_to);
    const user = email && email.length <= 320 ? await deps.store.users.findByEmail(email) : undefined;
    // The account's delay after repeated failures (sign-in-throttle.ts): while it lasts, no password is checked.
    const claimed = email ? await claimCheck(deps, email) : {};
    const ok = !claimed.refusedFor && (await verifyPassword(user?.passwordHash, password));
    if (!user || !ok) {
      const wait = claimed.refusedFor ?? (email ? await passwordWrong(deps, request, email, 'sign_in_failed') : undefined);
      if (!email) request.log.info({ event: 'sign_in_failed', ip: request.ip }, 'sign-in failed');
      // Only an account's failures are logged for its owner and admins: an unknown address names nobody.
      if (user) await logActivity(deps, { event: 'sign_in_failed', userId: user.id, via: 'web', operation: 'sign_in' });
      const clientName = await clientNameFor(returnTo, deps);
      if (wait) reply.header('retry-after', String(wait));
      return reply
        .code(wait ? 429 : 401)
        .type(HTML)
        .header('cache-control', 'no-store')
        .send(signInPage({ csrfToken: reply.formToken(), returnTo, email, error: wait ? tooManyFailures(wait) : 'The email or password is incorrect.', ...(clientName ? { clientName } : {}) }));
    }
    await passwordRight(deps, email);
    await startSession(request, reply, user, deps);
    await logActivity(deps, { event: 'sign_in', userId: user.id, via: 'web', operation: 'sign_in' });
    return reply.code(303).header('cache-control', 'no-store').redirect(returnTo, 303);
  });

  app.get(WEB_PATHS.signIn, { ...html, schema: HIDDEN }, async (request, reply) => {
    const returnTo = safeReturnTo(paramOf(request.query, 'return_to'));
    return reply
      .type(HTML)
      .header('cache-control', 'no-store')
      .send(signInPage({ csrfToken: reply.formToken(), returnTo }));
  });
}

/** The name of the app an authorization sign-in is for, so a retry shows the same page. */
async function clientNameFor(returnTo: string, deps: Deps): Promise<string | undefined> {
  // returnTo is one of Lyceum's own pages (safeReturnTo): only the authorization request's has a query.
  const clientId = new URLSearchParams(returnTo.slice(returnTo.indexOf('?') + 1)).get('client_id');
  const client = clientId ? await deps.store.clients.find(clientId) : undefined;
  return client ? (client.metadata.client_name ?? 'An app') : undefined;
}

/** Only Lyceum's own pages that sign-in leads back to: never an open redirect. */
function safeReturnTo(value: unknown): string {
  // Printable ASCII only: it becomes a Location header, and Lyceum's own links are always URL-encoded.
  if (typeof value !== 'string' || !/^[\x21-\x7e]+$/.test(value) || value.includes('\\') || value.length >= 8000) return '/';
  if (value.startsWith(`${ENDPOINTS.authorization}?`) || value === APPS_PATH || value === ENDPOINTS.deviceVerification || value.startsWith(`${ENDPOINTS.deviceVerification}?`)) return value;
  return '/';
}
