import type { Deps } from '../../deps.ts';
import type { Client } from '../../store/types.ts';
import { OAuthError } from '../errors.ts';
import { matchRegisteredRedirectUri } from '../loopback.ts';
import { matchOperatorRedirectUri } from '../operator-redirect-uri.ts';
import { matchDocumentRedirectUri } from '../clients/metadata-document-rules.ts';
import { isClientIdUrl } from '../../util/client-id-url.ts';
import { resolveClient } from '../clients/resolve-client.ts';
import { isWellFormedS256Challenge } from '../pkce.ts';
import { checkResource, resourcesFor } from '../resources.ts';
import { parseScope, type Scope } from '../../access/scopes.ts';
import { AUTHORIZATION_SERVER as AS, isOneOf, orList } from '../../util/authorization-server.ts';

export type RawParams = Record<string, unknown>;

/** A fully validated authorization request. */
export interface AuthorizationRequest {
  client: Client;
  redirectUri: string;
  scopes: Scope[];
  state: string | undefined;
  nonce: string | undefined;
  codeChallenge: string;
  resource: string | null;
  prompt: string | undefined;
  maxAge: number | undefined;
}

/** Parameters carried from the authorize GET to the consent form and back. */
export const CARRIED_PARAMS = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'nonce', 'code_challenge', 'code_challenge_method', 'resource', 'prompt', 'max_age'] as const;

export type ValidationResult =
  /** Client or redirect URI cannot be trusted: show a page, never redirect (RFC 6749 §4.1.2.1). */
  | { kind: 'page'; error: OAuthError }
  /** Any other problem: tell the client on its redirect URI. */
  | { kind: 'redirect'; error: OAuthError; redirectUri: string; state: string | undefined }
  | { kind: 'ok'; request: AuthorizationRequest };

const MAX_STATE_BYTES = AS.limits.stateBytes;

/** RFC 6749 §3.1: "Request and response parameters MUST NOT be included more than once." */
function single(params: RawParams, name: string): string | undefined {
  const v = params[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new OAuthError('invalid_request', `${name} must be given exactly once`);
  return v;
}

function bounded(params: RawParams, name: string, max: number): string | undefined {
  const v = single(params, name);
  if (v !== undefined && v.length > max) throw new OAuthError('invalid_request', `${name} must be at most ${max} characters`);
  return v;
}

async function checkClient(params: RawParams, deps: Deps): Promise<Client> {
  const clientId = single(params, 'client_id');
  if (!clientId) throw new OAuthError('invalid_request', 'client_id is required');
  let client: Client | undefined;
  try {
    client = clientId.length <= AS.limits.clientId || isClientIdUrl(clientId) ? await resolveClient(clientId, deps) : undefined;
  } catch (err) {
    // A metadata document that cannot be used (the draft: "the authorization server SHOULD abort the
    // authorization request"): shown as a page, so 400 rather than invalid_client's usual 401.
    if (err instanceof OAuthError && err.code === 'invalid_client') {
      throw new OAuthError('invalid_client', err.description, 400).withDetail(err.detail);
    }
    throw err;
  }
  // Shown as a page (never redirected), so 400 rather than invalid_client's usual 401, which would need a challenge.
  if (!client) throw new OAuthError('invalid_client', 'No client is registered with this client_id. Register it again at /api/oauth/register.', 400);
  return client;
}

function checkRedirectUri(params: RawParams, client: Client, deps: Deps): string {
  const redirectUri = single(params, 'redirect_uri');
  // Loopback clients may use any port, so Lyceum cannot infer the URI: it is always required.
  if (!redirectUri) throw new OAuthError('invalid_request', 'redirect_uri is required');
  // The school's clients may have https and private-use redirect URIs, matched as written; a
  // client known by its metadata document is matched against the document's list.
  const matches = isClientIdUrl(client.id) ? matchDocumentRedirectUri : client.registration === 'operator' ? matchOperatorRedirectUri : matchRegisteredRedirectUri;
  if (!matches(redirectUri, client.metadata.redirect_uris, deps.config.loopbackHosts)) {
    throw new OAuthError('invalid_request', 'redirect_uri does not match any URI registered for this client.');
  }
  return redirectUri;
}

function checkResponseType(params: RawParams): void {
  const responseType = single(params, 'response_type');
  if (!responseType) throw new OAuthError('invalid_request', 'response_type is required');
  if (!isOneOf(AS.responseTypes, responseType)) {
    throw new OAuthError('unsupported_response_type', `Only ${orList(AS.responseTypes.map((t) => `response_type=${t}`))} is supported`);
  }
}

/** RFC 7636 §4.4.1 and OAuth 2.1: PKCE is mandatory here, with the supported methods only (S256; plain is refused). */
function checkPkce(params: RawParams): string {
  const challenge = single(params, 'code_challenge');
  const method = single(params, 'code_challenge_method');
  if (!challenge) throw new OAuthError('invalid_request', `code_challenge is required (PKCE with ${orList(AS.pkceMethods)})`);
  if (!isOneOf(AS.pkceMethods, method)) throw new OAuthError('invalid_request', `code_challenge_method must be ${orList(AS.pkceMethods)}`);
  if (!isWellFormedS256Challenge(challenge)) throw new OAuthError('invalid_request', 'code_challenge must be 43 base64url characters');
  return challenge;
}

export function checkScope(params: RawParams, client: Client): Scope[] {
  const raw = bounded(params, 'scope', AS.limits.scope) ?? client.metadata.scope;
  // RFC 6749 §3.3: with no scope, "the authorization server MUST either process the request using a pre-defined default value or fail".
  if (!raw) throw new OAuthError('invalid_scope', 'scope is required');
  const { scopes, unknown } = parseScope(raw);
  if (unknown.length > 0) throw new OAuthError('invalid_scope', `Unknown scope: ${unknown.join(' ')}`);
  if (scopes.length === 0) throw new OAuthError('invalid_scope', 'scope is required');
  return client.registration === 'operator' ? withinOperatorScope(scopes, client) : scopes;
}

/**
 * A client the school added with --scope may be granted those scopes and no
 * others. RFC 6749 §3.3: the server "MAY fully or partially ignore the scope
 * requested by the client, based on the authorization server policy": the
 * rest is dropped (the token response's scope tells the client), and a
 * request left with nothing is invalid_scope.
 */
function withinOperatorScope(scopes: Scope[], client: Client): Scope[] {
  if (client.metadata.scope === undefined) return scopes;
  const allowed = parseScope(client.metadata.scope).scopes;
  const kept = scopes.filter((s) => allowed.includes(s));
  if (kept.length === 0) throw new OAuthError('invalid_scope', `This app may ask only for: ${allowed.join(' ')}`);
  return kept;
}

export function checkResourceParam(params: RawParams, deps: Deps): string | null {
  const v = params.resource;
  if (v === undefined) return null;
  // RFC 8707 §2 allows several; a Lyceum token serves one resource, so one is accepted.
  if (typeof v !== 'string') throw new OAuthError('invalid_target', 'Send one resource per request');
  const check = checkResource(v, resourcesFor(deps.config.issuer));
  if (!check.ok) throw new OAuthError('invalid_target', check.reason);
  return check.resource;
}

function checkMaxAge(params: RawParams): number | undefined {
  const v = single(params, 'max_age');
  if (v === undefined) return undefined;
  if (!/^\d{1,9}$/.test(v)) throw new OAuthError('invalid_request', 'max_age must be a non-negative integer');
  return Number(v);
}

function checkPrompt(params: RawParams): string | undefined {
  const v = single(params, 'prompt');
  if (v === undefined) return undefined;
  const values = v.split(' ').filter(Boolean);
  if (values.some((p) => !isOneOf(AS.promptValues, p))) throw new OAuthError('invalid_request', `prompt must be ${orList(AS.promptValues)}`);
  // OIDC Core §3.1.2.1: "If this parameter contains none with any other value, an error is returned."
  if (values.includes('none') && values.length > 1) throw new OAuthError('invalid_request', 'prompt=none cannot be combined');
  return values.join(' ');
}

/**
 * The authorization endpoint's checks, in order (RFC 6749 §4.1.1, RFC 7636,
 * RFC 8707). Client and redirect URI come first: until both are trusted,
 * errors are shown to the user and never redirected.
 */
export async function validateAuthorizationRequest(params: RawParams, deps: Deps): Promise<ValidationResult> {
  let client: Client;
  let redirectUri: string;
  try {
    client = await checkClient(params, deps);
    redirectUri = checkRedirectUri(params, client, deps);
  } catch (err) {
    if (err instanceof OAuthError) return { kind: 'page', error: err };
    throw err;
  }
  const rawState = params.state;
  const state = typeof rawState === 'string' ? rawState : undefined;
  // RFC 6749 §4.1.2.1: an error redirect carries "the exact value received from the client"; one
  // too long to fit in a Location header a client can read is refused on the page instead.
  if (state !== undefined && Buffer.byteLength(state) > MAX_STATE_BYTES) {
    return { kind: 'page', error: new OAuthError('invalid_request', `state must be at most ${MAX_STATE_BYTES} bytes (UTF-8)`) };
  }
  try {
    single(params, 'state');
    checkResponseType(params);
    const codeChallenge = checkPkce(params);
    const scopes = checkScope(params, client);
    const resource = checkResourceParam(params, deps);
    const nonce = bounded(params, 'nonce', AS.limits.nonce);
    const prompt = checkPrompt(params);
    const maxAge = checkMaxAge(params);
    return {
      kind: 'ok',
      request: { client, redirectUri, scopes, state, nonce, codeChallenge, resource, prompt, maxAge },
    };
  } catch (err) {
    if (err instanceof OAuthError) return { kind: 'redirect', error: err, redirectUri, state };
    throw err;
  }
}
