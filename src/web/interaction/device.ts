import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { grantableScopes } from '../../access/roles.ts';
import { formatScope, parseScope } from '../../access/scopes.ts';
import type { Deps } from '../../deps.ts';
import { paramOf, paramsOf } from '../../http/requests/params.ts';
import { displayUserCode, normaliseUserCode, userCodeHash } from '../../oauth/device/user-code.ts';
import { ENDPOINTS } from '../../oauth/endpoints.ts';
import { claimCodeCheck, codeWasRight } from '../../users/device-code-throttle.ts';
import { onlyLoopbackRedirects } from '../../oauth/clients/metadata-document-rules.ts';
import { isClientIdUrl } from '../../util/client-id-url.ts';
import { resolveClient } from '../../oauth/clients/resolve-client.ts';
import { OAuthError } from '../../oauth/errors.ts';
import { readConsentChoice } from '../../oauth/authorize/next-step.ts';
import { recordConsent } from '../../oauth/authorize/record-consent.ts';
import { DEVICE_PAGE_SCHEMA, HIDDEN } from '../../oauth/schemas.ts';
import { declarePublicRoute } from '../../http/routes/operation.ts';
import type { DeviceAuthorization } from '../../store/types.ts';
import { AUTHORIZATION_SERVER } from '../../util/authorization-server.ts';
import { consentPage } from '../pages/consent.ts';
import { deviceCodePage, deviceDonePage } from '../pages/device.ts';
import { WEB_PATHS } from './paths.ts';
import { readSession, type SignedIn } from './session.ts';

const HTML = 'text/html; charset=utf-8';
const NOT_VALID = 'That code is not valid, or it has expired. Check the code on your device, or start again there.';
const { userCodeLength, userCodeAlphabet } = AUTHORIZATION_SERVER.deviceFlow;
const MALFORMED = `A code is ${userCodeLength} letters, like ${displayUserCode(userCodeAlphabet.slice(0, userCodeLength))}; the dash is optional.`;
const tooManyWrongCodes = (seconds: number) => `Too many wrong codes. Try again in ${seconds} second${seconds === 1 ? '' : 's'}.`;
const USED = 'That code was already used. Start again on your device to get a new one.';

/** The device page, with this code filled in when there is one: where sign-in comes back to. */
const devicePageUrl = (code: string | undefined) => (code ? `${ENDPOINTS.deviceVerification}?user_code=${encodeURIComponent(code)}` : ENDPOINTS.deviceVerification);

function toSignIn(reply: FastifyReply, code: string | undefined) {
  return reply
    .code(303)
    .header('cache-control', 'no-store')
    .redirect(`${WEB_PATHS.signIn}?return_to=${encodeURIComponent(devicePageUrl(code))}`, 303);
}

function showCodePage(reply: FastifyReply, signedIn: SignedIn, status: number, userCode: string | undefined, error?: string) {
  const page = deviceCodePage({ csrfToken: reply.formToken(), userEmail: signedIn.user.email, ...(userCode ? { userCode } : {}), ...(error ? { error } : {}) });
  return reply.code(status).type(HTML).header('cache-control', 'no-store').send(page);
}

/** Why a typed code leads nowhere: the page's status and message, and how long to wait when throttled. */
interface Refusal {
  status: 400 | 429;
  error: string;
  retryAfter?: number;
}

type Lookup = { authorization: DeviceAuthorization; code: string } | { refusal: Refusal };

/**
 * The authorization a typed code names, pending and unexpired, or why not.
 * Every well-formed code is a guess until it is found, counted per account
 * and per address (users/device-code-throttle.ts).
 */
async function lookUp(request: FastifyRequest, signedIn: SignedIn, typed: string | undefined, deps: Deps): Promise<Lookup> {
  const code = typed === undefined ? undefined : normaliseUserCode(typed);
  if (!code) return { refusal: { status: 400, error: MALFORMED } };
  const claim = await claimCodeCheck(deps, signedIn.user.id, request.ip);
  if (claim.refusedFor) {
    request.log.warn({ event: 'user_code_throttled', user_id: signedIn.user.id, ip: request.ip }, 'device page: too many wrong codes');
    return { refusal: { status: 429, error: tooManyWrongCodes(claim.refusedFor), retryAfter: claim.refusedFor } };
  }
  const found = await deps.store.deviceAuthorizations.findByUserCode(userCodeHash(code));
  if (!found) {
    request.log.info({ event: 'user_code_wrong', user_id: signedIn.user.id, ip: request.ip }, 'device page: wrong code');
    return { refusal: { status: 400, error: NOT_VALID } };
  }
  await codeWasRight(deps, claim);
  if (deps.now() >= found.expiresAt) return { refusal: { status: 400, error: NOT_VALID } };
  // RFC 8628 §5.4: a code approved once can never be approved again, by anyone.
  if (found.status !== 'pending') return { refusal: { status: 400, error: USED } };
  return { authorization: found, code };
}

/** The code form again, with the refusal and what the person typed. */
function showRefusal(reply: FastifyReply, signedIn: SignedIn, typed: string | undefined, r: Refusal) {
  if (r.retryAfter) reply.header('retry-after', String(r.retryAfter));
  return showCodePage(reply, signedIn, r.status, typed?.slice(0, 40), r.error);
}

async function showConsent(reply: FastifyReply, a: DeviceAuthorization, code: string, signedIn: SignedIn, deps: Deps) {
  const client = await resolveClient(a.clientId, deps);
  if (!client) throw new OAuthError('invalid_client', 'The app that started this sign-in is no longer registered. Start again on your device.', 400);
  const requested = parseScope(a.scope).scopes;
  const grantable = grantableScopes(requested, signedIn.user.role);
  const page = consentPage({
    csrfToken: reply.formToken(),
    clientName: client.metadata.client_name ?? 'An unnamed app',
    clientId: client.id,
    redirectHost: '',
    registeredBySchool: client.registration === 'operator',
    userEmail: signedIn.user.email,
    grantable,
    withheld: requested.filter((s) => !grantable.includes(s)),
    params: { user_code: displayUserCode(code) },
    action: WEB_PATHS.deviceDecision,
    device: { userCode: displayUserCode(code) },
    ...(isClientIdUrl(client.id) ? { metadataDocument: { host: new URL(client.id).host, onlyLoopback: onlyLoopbackRedirects(client.metadata) } } : {}),
  });
  return reply.type(HTML).header('cache-control', 'no-store').send(page);
}

/**
 * The device grant's verification page (RFC 8628 §3.3): GET shows the code
 * form (filled in from verification_uri_complete), POST checks the code and
 * shows the consent page, and the decision approves or denies the device.
 * Every step needs a session (sign-in comes back here), the same-origin and
 * CSRF checks of every form, and a code that is pending and unexpired.
 */
export function registerDeviceRoutes(app: FastifyInstance, deps: Deps): void {
  const html = { config: { html: true } };
  const form = { ...html, schema: HIDDEN, preValidation: app.formProtection };

  declarePublicRoute(app, { method: 'GET', path: ENDPOINTS.deviceVerification, operationId: 'deviceVerificationPage', schema: DEVICE_PAGE_SCHEMA, options: html }, async (request, reply) => {
    const typed = paramOf(request.query, 'user_code');
    const code = typeof typed === 'string' ? typed.slice(0, 40) : undefined;
    const signedIn = await readSession(request, deps);
    if (!signedIn) return toSignIn(reply, code);
    const normalised = code && normaliseUserCode(code);
    return showCodePage(reply, signedIn, 200, normalised ? displayUserCode(normalised) : code);
  });

  app.post(ENDPOINTS.deviceVerification, form, async (request, reply) => {
    const typed = paramOf(request.body, 'user_code');
    const signedIn = await readSession(request, deps);
    if (!signedIn) return toSignIn(reply, typeof typed === 'string' ? typed.slice(0, 40) : undefined);
    const code = typeof typed === 'string' ? typed : undefined;
    const found = await lookUp(request, signedIn, code, deps);
    if ('refusal' in found) return showRefusal(reply, signedIn, code, found.refusal);
    return showConsent(reply, found.authorization, found.code, signedIn, deps);
  });

  app.post(WEB_PATHS.deviceDecision, form, async (request, reply) => {
    const body = paramsOf(request.body);
    const typed = typeof body.user_code === 'string' ? body.user_code : undefined;
    const signedIn = await readSession(request, deps);
    // The session ended while the page was open: sign in again, then confirm the code again.
    if (!signedIn) return toSignIn(reply, typed?.slice(0, 40));
    if (body.decision !== 'approve' && body.decision !== 'approve_read_only' && body.decision !== 'deny') {
      throw new OAuthError('invalid_request', 'decision must be approve, approve_read_only or deny');
    }
    const found = await lookUp(request, signedIn, typed, deps);
    if ('refusal' in found) return showRefusal(reply, signedIn, typed, found.refusal);
    const a = found.authorization;
    const now = deps.now();
    // The same choice as the code flow's consent form: ticked scopes (never more than the role allows) and a duration.
    const offered = grantableScopes(parseScope(a.scope).scopes, signedIn.user.role);
    const choice = body.decision === 'deny' ? undefined : readConsentChoice(body, offered, now);
    const approve = choice !== undefined;
    const scope = formatScope(choice?.scopes ?? []);
    const decided = await deps.store.deviceAuthorizations.decide(
      a.hash,
      approve ? { status: 'approved', userId: signedIn.user.id, scope, authTime: signedIn.session.authTime } : { status: 'denied', userId: signedIn.user.id },
      now,
    );
    // Another tab, or another person, decided first; or it expired meanwhile.
    if (!decided) return showCodePage(reply, signedIn, 400, displayUserCode(found.code), USED);
    const client = await resolveClient(a.clientId, deps);
    if (choice) await recordConsent(deps, { userId: signedIn.user.id, clientId: a.clientId, scope, now }, { ...choice, offered, operation: 'device' });
    request.log.info({ event: approve ? 'device_approved' : 'device_denied', client_id: a.clientId, user_id: signedIn.user.id }, 'device authorization decided');
    const page = deviceDonePage({ approved: approve, clientName: client?.metadata.client_name ?? 'The app' });
    return reply.type(HTML).header('cache-control', 'no-store').send(page);
  });
}
