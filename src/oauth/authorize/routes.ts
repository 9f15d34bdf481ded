import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.ts';
import { AUTHORIZE_SCHEMA, HIDDEN } from '../schemas.ts';
import { rateLimitPerMinute } from '../../http/rate-limit.ts';
import { verifyPassword } from '../../users/passwords.ts';
import { claimCheck, passwordRight, passwordWrong, tooManyFailures } from '../../users/sign-in-throttle.ts';
import { consentPage } from '../../web/pages/consent.ts';
import { signInPage } from '../../web/pages/sign-in.ts';
import { APPS_PATH } from '../../web/connected-apps.ts';
import { readSession, startSession, type SignedIn } from '../../web/session.ts';
import { ENDPOINTS, WEB_PATHS } from '../endpoints.ts';
import { OAuthError } from '../errors.ts';
import { grantableScopes } from '../../access/roles.ts';
import { issueCode } from './issue-code.ts';
import { redirectToClient } from './redirect.ts';
import {
  CARRIED_PARAMS,
  validateAuthorizationRequest,
  type AuthorizationRequest,
  type RawParams,
} from './validate-request.ts';

const HTML = 'text/html; charset=utf-8';

/**
 * The authorization request's own parameters, as strings, for the consent form and the sign-in return.
 * `afterSignIn`: the return from a sign-in the request demanded. The fresh sign-in meets
 * `prompt=login` and `max_age`, so both are dropped; kept, `max_age=0` would send the user
 * back to the sign-in page forever, since any sign-in is older than zero seconds by the
 * time the browser comes back (OIDC Core §3.1.2.1: max_age=0 is "equivalent to prompt=login").
 */
function carriedParams(params: RawParams, drop: { afterSignIn?: boolean } = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of CARRIED_PARAMS) {
    const v = params[name];
    if (typeof v === 'string') out[name] = v;
  }
  if (drop.afterSignIn) delete out.max_age;
  if (drop.afterSignIn && out.prompt) {
    const rest = out.prompt.split(' ').filter((p) => p && p !== 'login');
    if (rest.length) out.prompt = rest.join(' ');
    else delete out.prompt;
  }
  return out;
}

function authorizeUrl(params: Record<string, string>): string {
  return `${ENDPOINTS.authorization}?${new URLSearchParams(params).toString()}`;
}

function needsSignIn(req: AuthorizationRequest, signedIn: SignedIn | undefined, now: number): boolean {
  if (!signedIn) return true;
  if (req.prompt?.split(' ').includes('login')) return true;
  // OIDC Core §3.1.2.1 max_age: re-authenticate when the last sign-in is older.
  return req.maxAge !== undefined && now - signedIn.session.authTime > req.maxAge * 1000;
}

async function showSignIn(reply: FastifyReply, returnParams: Record<string, string>, clientName: string, status = 200) {
  const csrfToken = reply.formToken();
  return reply.code(status).type(HTML).header('cache-control', 'no-store').send(
    signInPage({ csrfToken, returnTo: authorizeUrl(returnParams), clientName }),
  );
}

async function showConsent(reply: FastifyReply, req: AuthorizationRequest, signedIn: SignedIn, params: RawParams) {
  const grantable = grantableScopes(req.scopes, signedIn.user.role);
  const page = consentPage({
    csrfToken: reply.formToken(),
    clientName: req.client.metadata.client_name ?? 'An unnamed app',
    clientId: req.client.id,
    redirectHost: new URL(req.redirectUri).host,
    userEmail: signedIn.user.email,
    grantable,
    withheld: req.scopes.filter((s) => !grantable.includes(s)),
    params: carriedParams(params),
  });
  return reply.type(HTML).header('cache-control', 'no-store').send(page);
}

async function approve(reply: FastifyReply, req: AuthorizationRequest, signedIn: SignedIn, deps: Deps, status: 302 | 303) {
  let code: string;
  try {
    code = await issueCode(req, signedIn.user, signedIn.session.authTime, deps);
  } catch (err) {
    if (!(err instanceof OAuthError)) throw err;
    const params = { error: err.code, error_description: err.description, state: req.state };
    return redirectToClient(reply, req.redirectUri, deps.config.issuer, params, status);
  }
  return redirectToClient(reply, req.redirectUri, deps.config.issuer, { code, state: req.state }, status);
}

/** Runs the request checks; answers the error itself and returns undefined when they fail. */
async function validated(request: FastifyRequest, reply: FastifyReply, params: RawParams, deps: Deps) {
  const result = await validateAuthorizationRequest(params, deps);
  if (result.kind === 'page') throw result.error;
  if (result.kind === 'redirect') {
    redirectToClient(reply, result.redirectUri, deps.config.issuer, {
      error: result.error.code,
      error_description: result.error.description,
      state: result.state,
    });
    return undefined;
  }
  return result.request;
}

/**
 * GET /oauth/authorize, the sign-in form and the consent decision. Pages are
 * plain HTML forms with CSRF tokens; every step re-validates the request.
 */
export function registerAuthorizeRoutes(app: FastifyInstance, deps: Deps): void {
  const html = { config: { html: true } };

  app.get(ENDPOINTS.authorization, { ...html, schema: AUTHORIZE_SCHEMA }, async (request, reply) => {
    const params = request.query as RawParams;
    const req = await validated(request, reply, params, deps);
    if (!req) return reply;
    const signedIn = await readSession(request, deps);
    const clientName = req.client.metadata.client_name ?? 'An app';

    if (req.prompt === 'none') {
      // OIDC Core §3.1.2.6: with prompt=none, errors instead of pages.
      const confidentialWithGrant = signedIn && (await hasCoveringGrant(req, signedIn, deps));
      if (signedIn && confidentialWithGrant && !needsSignIn(req, signedIn, deps.now())) return approve(reply, req, signedIn, deps, 302);
      const login = !signedIn || needsSignIn(req, signedIn, deps.now());
      return redirectToClient(reply, req.redirectUri, deps.config.issuer, {
        error: login ? 'login_required' : 'consent_required',
        error_description: login ? 'The user must sign in, which prompt=none forbids.' : 'The user must approve this app, which prompt=none forbids.',
        state: req.state,
      });
    }
    if (needsSignIn(req, signedIn, deps.now())) return showSignIn(reply, carriedParams(params, { afterSignIn: true }), clientName);
    const user = signedIn!;
    if (!req.prompt?.includes('consent') && (await hasCoveringGrant(req, user, deps))) return approve(reply, req, user, deps, 302);
    return showConsent(reply, req, user, params);
  });

  app.post(WEB_PATHS.decision, { ...html, schema: HIDDEN, preValidation: app.formProtection }, async (request, reply) => {
    const body = (request.body ?? {}) as RawParams;
    const req = await validated(request, reply, body, deps);
    if (!req) return reply;
    const signedIn = await readSession(request, deps);
    if (!signedIn) return showSignIn(reply, carriedParams(body), req.client.metadata.client_name ?? 'An app');
    if (body.decision === 'approve') return approve(reply, req, signedIn, deps, 303);
    if (body.decision === 'deny') {
      return redirectToClient(
        reply,
        req.redirectUri,
        deps.config.issuer,
        { error: 'access_denied', error_description: 'The user denied the request.', state: req.state },
        303,
      );
    }
    throw new OAuthError('invalid_request', 'decision must be approve or deny');
  });

  const signInLimit = { config: { ...html.config, rateLimit: rateLimitPerMinute(deps.config.rateLimits.signInPerMinute) } };
  app.post(WEB_PATHS.signIn, { ...signInLimit, schema: HIDDEN, preValidation: app.formProtection }, async (request, reply) => {
    const body = (request.body ?? {}) as RawParams;
    const email = typeof body.email === 'string' ? body.email.trim() : '';
    const password = typeof body.password === 'string' ? body.password : '';
    const returnTo = safeReturnTo(body.return_to);
    const user = email && email.length <= 320 ? await deps.store.users.findByEmail(email) : undefined;
    // The account's delay after repeated failures (sign-in-throttle.ts): while it lasts, no password is checked.
    const claimed = email ? await claimCheck(deps, email) : {};
    const ok = !claimed.refusedFor && (await verifyPassword(user?.passwordHash, password));
    if (!user || !ok) {
      const wait = claimed.refusedFor ?? (email ? passwordWrong(request, email, claimed, 'sign_in_failed') : undefined);
      if (!email) request.log.info({ event: 'sign_in_failed', ip: request.ip }, 'sign-in failed');
      const clientName = await clientNameFor(returnTo, deps);
      if (wait) reply.header('retry-after', String(wait));
      return reply.code(wait ? 429 : 401).type(HTML).header('cache-control', 'no-store').send(
        signInPage({ csrfToken: reply.formToken(), returnTo, email, error: wait ? tooManyFailures(wait) : 'The email or password is incorrect.', ...(clientName ? { clientName } : {}) }),
      );
    }
    await passwordRight(deps, email);
    await startSession(request, reply, user, deps);
    return reply.code(303).header('cache-control', 'no-store').redirect(returnTo, 303);
  });

  app.get(WEB_PATHS.signIn, { ...html, schema: HIDDEN }, async (request, reply) => {
    const returnTo = safeReturnTo((request.query as RawParams).return_to);
    return reply.type(HTML).header('cache-control', 'no-store').send(signInPage({ csrfToken: reply.formToken(), returnTo }));
  });
}

/** The name of the app an authorization sign-in is for, so a retry shows the same page. */
async function clientNameFor(returnTo: string, deps: Deps): Promise<string | undefined> {
  if (!returnTo.startsWith(`${ENDPOINTS.authorization}?`)) return undefined;
  const clientId = new URLSearchParams(returnTo.slice(returnTo.indexOf('?') + 1)).get('client_id');
  const client = clientId && clientId.length <= 200 ? await deps.store.clients.find(clientId) : undefined;
  return client ? (client.metadata.client_name ?? 'An app') : undefined;
}

/** Only Lyceum's own pages that sign-in leads back to: never an open redirect. */
function safeReturnTo(value: unknown): string {
  // Printable ASCII only: it becomes a Location header, and Lyceum's own links are always URL-encoded.
  if (typeof value !== 'string' || !/^[\x21-\x7e]+$/.test(value) || value.includes('\\') || value.length >= 8000) return '/';
  if (value.startsWith(`${ENDPOINTS.authorization}?`) || value === APPS_PATH) return value;
  return '/';
}

/**
 * RFC 8252 §8.6: a public native client's identity cannot be verified, so its
 * users see the consent page every time. Only confidential clients with a
 * prior grant covering the request skip it.
 */
async function hasCoveringGrant(req: AuthorizationRequest, signedIn: SignedIn, deps: Deps): Promise<boolean> {
  if (req.client.metadata.token_endpoint_auth_method === 'none') return false;
  const grant = await deps.store.grants.find(signedIn.user.id, req.client.id);
  if (!grant) return false;
  const granted = new Set(grant.scope.split(' '));
  return grantableScopes(req.scopes, signedIn.user.role).every((s) => granted.has(s));
}
