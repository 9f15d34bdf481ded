import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { grantableScopes } from '../../access/roles.ts';
import type { Deps } from '../../deps.ts';
import { hasCoveringGrant } from '../../oauth/authorize/covering-grant.ts';
import { issueCode } from '../../oauth/authorize/issue-code.ts';
import { redirectWithCode, redirectWithError } from '../../oauth/authorize/redirect.ts';
import { declarePublicRoute } from '../../http/routes/operation.ts';
import {
  CARRIED_PARAMS,
  validateAuthorizationRequest,
  type AuthorizationRequest,
  type RawParams,
} from '../../oauth/authorize/validate-request.ts';
import { ENDPOINTS } from '../../oauth/endpoints.ts';
import { isClientIdUrl, onlyLoopbackRedirects } from '../../oauth/clients/metadata-document-rules.ts';
import { OAuthError } from '../../oauth/errors.ts';
import { AUTHORIZE_SCHEMA, HIDDEN } from '../../oauth/schemas.ts';
import { consentPage } from '../pages/consent.ts';
import { redirectTarget } from '../redirect-target.ts';
import { signInPage } from '../pages/sign-in.ts';
import { WEB_PATHS } from './paths.ts';
import { readSession, type SignedIn } from './session.ts';

const HTML = 'text/html; charset=utf-8';

/** OIDC Core §3.1.2.6 login_required: "The Authorization Server requires End-User authentication." */
const loginRequired = () => new OAuthError('login_required', 'The user must sign in, which prompt=none forbids.');
/** OIDC Core §3.1.2.6 consent_required: "The Authorization Server requires End-User consent." */
const consentRequired = () => new OAuthError('consent_required', 'The user must approve this app, which prompt=none forbids.');
/** RFC 6749 §4.1.2.1 access_denied: "The resource owner or authorization server denied the request." */
const accessDenied = () => new OAuthError('access_denied', 'The user denied the request.');

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
    redirectHost: redirectTarget(req.redirectUri),
    registeredBySchool: req.client.registration === 'operator',
    userEmail: signedIn.user.email,
    grantable,
    withheld: req.scopes.filter((s) => !grantable.includes(s)),
    params: carriedParams(params),
    redirectElsewhere: req.redirectUri.startsWith('https://'),
    ...(isClientIdUrl(req.client.id) ? { metadataDocument: { host: new URL(req.client.id).host, onlyLoopback: onlyLoopbackRedirects(req.client.metadata) } } : {}),
  });
  return reply.type(HTML).header('cache-control', 'no-store').send(page);
}

async function approve(reply: FastifyReply, req: AuthorizationRequest, signedIn: SignedIn, deps: Deps, status: 302 | 303) {
  let code: string;
  try {
    code = await issueCode(req, signedIn.user, signedIn.session.authTime, deps);
  } catch (err) {
    if (!(err instanceof OAuthError)) throw err;
    return redirectWithError(reply, req, deps.config.issuer, err, status);
  }
  return redirectWithCode(reply, req, deps.config.issuer, code, status);
}

/** Runs the request checks; answers the error itself and returns undefined when they fail. */
async function validated(request: FastifyRequest, reply: FastifyReply, params: RawParams, deps: Deps) {
  const result = await validateAuthorizationRequest(params, deps);
  if (result.kind === 'page') throw result.error;
  if (result.kind === 'redirect') {
    redirectWithError(reply, result, deps.config.issuer, result.error);
    return undefined;
  }
  return result.request;
}

/**
 * GET /oauth/authorize and the consent decision: the browser's side of the
 * authorization endpoint. The checks, the code and the redirect are the
 * authorization core's (oauth/authorize/); this module asks who is signed in
 * and what they decide. Pages are plain HTML forms with CSRF tokens; every
 * step re-validates the request.
 */
export function registerAuthorizeRoutes(app: FastifyInstance, deps: Deps): void {
  const html = { config: { html: true } };

  declarePublicRoute(app, { method: 'GET', path: ENDPOINTS.authorization, operationId: 'authorize', schema: AUTHORIZE_SCHEMA, options: html }, async (request, reply) => {
    const params = request.query as RawParams;
    const req = await validated(request, reply, params, deps);
    if (!req) return reply;
    const signedIn = await readSession(request, deps);
    const clientName = req.client.metadata.client_name ?? 'An app';

    if (req.prompt === 'none') {
      // OIDC Core §3.1.2.6: with prompt=none, errors instead of pages.
      const confidentialWithGrant = signedIn && (await hasCoveringGrant(req, signedIn.user, deps.store));
      if (signedIn && confidentialWithGrant && !needsSignIn(req, signedIn, deps.now())) return approve(reply, req, signedIn, deps, 302);
      const login = !signedIn || needsSignIn(req, signedIn, deps.now());
      return redirectWithError(reply, req, deps.config.issuer, login ? loginRequired() : consentRequired());
    }
    if (needsSignIn(req, signedIn, deps.now())) return showSignIn(reply, carriedParams(params, { afterSignIn: true }), clientName);
    const user = signedIn!;
    if (!req.prompt?.includes('consent') && (await hasCoveringGrant(req, user.user, deps.store))) return approve(reply, req, user, deps, 302);
    return showConsent(reply, req, user, params);
  });

  app.post(WEB_PATHS.decision, { ...html, schema: HIDDEN, preValidation: app.formProtection }, async (request, reply) => {
    const body = (request.body ?? {}) as RawParams;
    const req = await validated(request, reply, body, deps);
    if (!req) return reply;
    const signedIn = await readSession(request, deps);
    if (!signedIn) return showSignIn(reply, carriedParams(body), req.client.metadata.client_name ?? 'An app');
    if (body.decision === 'approve') return approve(reply, req, signedIn, deps, 303);
    if (body.decision === 'deny') return redirectWithError(reply, req, deps.config.issuer, accessDenied(), 303);
    throw new OAuthError('invalid_request', 'decision must be approve or deny');
  });
}
