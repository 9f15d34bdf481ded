/**
 * What the authorization endpoint does with a request that passed its checks
 * (validate-request.ts): ask for a sign-in, ask for consent, issue the code,
 * or refuse on the redirect. The protocol's rules for `prompt` and `max_age`
 * live here, beside the checks; the browser side (web/interaction/) reads the
 * session, shows the pages and carries the step out.
 */
import { chosenScopes, consentEnd } from '../../access/consent.ts';
import { grantableScopes } from '../../access/roles.ts';
import type { Scope } from '../../access/scopes.ts';
import type { Store, User } from '../../store/types.ts';
import { ENDPOINTS } from '../endpoints.ts';
import { OAuthError } from '../errors.ts';
import { hasCoveringGrant } from './covering-grant.ts';
import { CARRIED_PARAMS, type AuthorizationRequest, type RawParams } from './validate-request.ts';

/** Who is signed in at the browser, and when they last proved it. */
export interface BrowserUser {
  user: User;
  authTime: number;
}

export type NextStep =
  /** Show the sign-in page; after it the browser comes back to `returnTo`. */
  | { kind: 'sign-in'; returnTo: string }
  /** Show the consent page. */
  | { kind: 'consent' }
  /** Issue the code and redirect with it; `choice` is what the person chose on the consent page (none: a covering grant). */
  | { kind: 'approve'; user: BrowserUser; choice?: ConsentChoice }
  /** Redirect to the client with this error. */
  | { kind: 'refuse'; error: OAuthError };

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
export function carriedParams(params: RawParams, drop: { afterSignIn?: boolean } = {}): Record<string, string> {
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

/** The authorization endpoint's own URL with these parameters: where a sign-in returns to. */
export const authorizeUrl = (params: Record<string, string>): string => `${ENDPOINTS.authorization}?${new URLSearchParams(params).toString()}`;

function needsSignIn(req: AuthorizationRequest, signedIn: BrowserUser | undefined, now: number): boolean {
  if (!signedIn) return true;
  if (req.prompt?.split(' ').includes('login')) return true;
  // OIDC Core §3.1.2.1 max_age: re-authenticate when the last sign-in is older.
  return req.maxAge !== undefined && now - signedIn.authTime > req.maxAge * 1000;
}

/** The step for a request that arrives at the endpoint (GET /oauth/authorize). */
export async function nextStep(req: AuthorizationRequest, params: RawParams, signedIn: BrowserUser | undefined, store: Pick<Store, 'grants'>, now: number): Promise<NextStep> {
  const signInDue = needsSignIn(req, signedIn, now);
  if (req.prompt === 'none') {
    // OIDC Core §3.1.2.6: with prompt=none, errors instead of pages.
    if (signInDue) return { kind: 'refuse', error: loginRequired() };
    if (await hasCoveringGrant(req, signedIn!.user, store, now)) return { kind: 'approve', user: signedIn! };
    return { kind: 'refuse', error: consentRequired() };
  }
  if (signInDue) return { kind: 'sign-in', returnTo: authorizeUrl(carriedParams(params, { afterSignIn: true })) };
  if (!req.prompt?.includes('consent') && (await hasCoveringGrant(req, signedIn!.user, store, now))) return { kind: 'approve', user: signedIn! };
  return { kind: 'consent' };
}

/** What the person chose on the consent page: the scopes to grant and when the consent ends (null: until they disconnect the app). */
export interface ConsentChoice {
  scopes: Scope[];
  expiresAt: number | null;
}

/**
 * The person's choice in a consent form's answer (the code flow's and the
 * device page's): the ticked scopes among those their role can grant, or
 * the read-only ones, and the chosen duration. Undefined when nothing they
 * could grant was chosen.
 */
export function readConsentChoice(params: RawParams, grantable: readonly Scope[], now: number): ConsentChoice | undefined {
  const scopes = chosenScopes(params, grantable, params.decision === 'approve_read_only');
  return scopes.length > 0 ? { scopes, expiresAt: consentEnd(params, now) } : undefined;
}

/** The step for the person's answer on the consent page. */
export function decisionStep(req: AuthorizationRequest, params: RawParams, signedIn: BrowserUser | undefined, now: number): NextStep {
  // The session ended while the page was open: sign in again, then see the same consent page.
  if (!signedIn) return { kind: 'sign-in', returnTo: authorizeUrl(carriedParams(params)) };
  if (params.decision === 'approve' || params.decision === 'approve_read_only') {
    const grantable = grantableScopes(req.scopes, signedIn.user.role);
    // Nothing the role allows was asked for: issueCode answers invalid_scope, as before any choice.
    if (grantable.length === 0) return { kind: 'approve', user: signedIn };
    const choice = readConsentChoice(params, grantable, now);
    // RFC 6749 §4.1.2.1 access_denied: every box unticked is a refusal, however the button was labelled.
    return choice ? { kind: 'approve', user: signedIn, choice } : { kind: 'refuse', error: new OAuthError('access_denied', 'The user granted none of the requested scopes.') };
  }
  if (params.decision === 'deny') return { kind: 'refuse', error: accessDenied() };
  throw new OAuthError('invalid_request', 'decision must be approve, approve_read_only or deny');
}
