import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { paramsOf } from '../../http/requests/params.ts';
import { grantableScopes } from '../../access/roles.ts';
import type { Deps } from '../../deps.ts';
import { carriedParams, decisionStep, nextStep, type BrowserUser, type ConsentChoice, type NextStep } from '../../oauth/authorize/next-step.ts';
import { issueCode } from '../../oauth/authorize/issue-code.ts';
import { redirectWithCode, redirectWithError } from '../../oauth/authorize/redirect.ts';
import { declarePublicRoute } from '../../http/routes/operation.ts';
import { validateAuthorizationRequest, type AuthorizationRequest, type RawParams } from '../../oauth/authorize/validate-request.ts';
import { ENDPOINTS } from '../../oauth/endpoints.ts';
import { onlyLoopbackRedirects } from '../../oauth/clients/metadata-document-rules.ts';
import { isClientIdUrl } from '../../util/client-id-url.ts';
import { OAuthError } from '../../oauth/errors.ts';
import { AUTHORIZE_SCHEMA, HIDDEN } from '../../oauth/schemas.ts';
import { consentPage } from '../pages/consent.ts';
import { redirectTarget } from '../redirect-target.ts';
import { signInPage } from '../pages/sign-in.ts';
import { WEB_PATHS } from './paths.ts';
import { readSession, type SignedIn } from './session.ts';

const HTML = 'text/html; charset=utf-8';

async function showSignIn(reply: FastifyReply, returnTo: string, clientName: string) {
  const csrfToken = reply.formToken();
  return reply.type(HTML).header('cache-control', 'no-store').send(signInPage({ csrfToken, returnTo, clientName }));
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
    action: WEB_PATHS.decision,
    redirectElsewhere: req.redirectUri.startsWith('https://'),
    ...(isClientIdUrl(req.client.id) ? { metadataDocument: { host: new URL(req.client.id).host, onlyLoopback: onlyLoopbackRedirects(req.client.metadata) } } : {}),
  });
  return reply.type(HTML).header('cache-control', 'no-store').send(page);
}

async function approve(reply: FastifyReply, req: AuthorizationRequest, signedIn: BrowserUser, deps: Deps, status: 302 | 303, choice?: ConsentChoice) {
  let code: string;
  try {
    code = await issueCode(req, signedIn.user, signedIn.authTime, deps, choice);
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

/** The browser user the session names, in the authorization core's terms. */
const browserUser = (signedIn: SignedIn | undefined): BrowserUser | undefined => signedIn && { user: signedIn.user, authTime: signedIn.session.authTime };

/**
 * GET /oauth/authorize and the consent decision: the browser's side of the
 * authorization endpoint. The checks, the next step (sign in, consent,
 * approve or refuse), the code and the redirect are the authorization
 * core's (oauth/authorize/); this module reads the session, shows the pages
 * and carries the step out. Pages are plain HTML forms with CSRF tokens;
 * every step re-validates the request.
 */
export function registerAuthorizeRoutes(app: FastifyInstance, deps: Deps): void {
  const html = { config: { html: true } };

  /** Carries out a step; `status` is 302 after a GET and 303 after the consent form's POST. */
  async function perform(reply: FastifyReply, req: AuthorizationRequest, step: NextStep, signedIn: SignedIn | undefined, params: RawParams, status: 302 | 303) {
    if (step.kind === 'sign-in') return showSignIn(reply, step.returnTo, req.client.metadata.client_name ?? 'An app');
    if (step.kind === 'consent') return showConsent(reply, req, signedIn!, params);
    if (step.kind === 'approve') return approve(reply, req, step.user, deps, status, step.choice);
    if (step.kind === 'refuse') return redirectWithError(reply, req, deps.config.issuer, step.error, status);
    // A step added to NextStep and not handled here does not compile.
    throw new Error(`unhandled authorization step ${(step satisfies never as NextStep).kind}`);
  }

  declarePublicRoute(app, { method: 'GET', path: ENDPOINTS.authorization, operationId: 'authorize', schema: AUTHORIZE_SCHEMA, options: html }, async (request, reply) => {
    const params = paramsOf(request.query);
    const req = await validated(request, reply, params, deps);
    if (!req) return reply;
    const signedIn = await readSession(request, deps);
    return perform(reply, req, await nextStep(req, params, browserUser(signedIn), deps.store, deps.now()), signedIn, params, 302);
  });

  app.post(WEB_PATHS.decision, { ...html, schema: HIDDEN, preValidation: app.formProtection }, async (request, reply) => {
    const body = paramsOf(request.body);
    const req = await validated(request, reply, body, deps);
    if (!req) return reply;
    const signedIn = await readSession(request, deps);
    return perform(reply, req, decisionStep(req, body, browserUser(signedIn), deps.now()), signedIn, body, 303);
  });
}
