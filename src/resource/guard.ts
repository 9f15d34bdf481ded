import type { Store, Token } from '../store/types.ts';
import { OAuthError } from '../oauth/errors.ts';
import { grantedScopes, type Scope } from '../access/scopes.ts';
import { sha256 } from '../oauth/issued-tokens/secrets.ts';
import { tokenState } from '../oauth/issued-tokens/state.ts';
import { prmUrl, resourceIdentifier, type ResourceName } from './protected-resources.ts';

/** Who is calling, as the guard decided. */
export type Caller = { kind: 'anonymous' } | { kind: 'token'; token: Token; scopes: ReadonlySet<Scope>; userId: string; clientId: string };

export interface GuardInput {
  /** The Authorization header, as received. */
  authorization: string | undefined;
  /** True when the query string or form body carries an access_token. */
  tokenInQuery: boolean;
  /** Scopes the operation needs; all of them (RFC 6750 §3.1 insufficient_scope). */
  required: readonly Scope[];
  resource: ResourceName;
  /** Whether anonymous callers may use the operation at all. */
  allowAnonymous: boolean;
  /**
   * The operation also has a public view: a valid token without the scopes is
   * served that view (as anonymous would be) instead of a 403.
   */
  publicView?: boolean;
}

export interface GuardContext {
  store: Store;
  issuer: string;
  now: number;
}

/** RFC 6750 §3 challenge with the RFC 9728 §5.1 resource_metadata parameter. */
function challenge(ctx: GuardContext, resource: ResourceName, fields: Record<string, string>): string {
  const params = { ...fields, resource_metadata: prmUrl(ctx.issuer, resource) };
  return `Bearer ${Object.entries(params)
    .map(([k, v]) => `${k}="${v.replace(/["\\]/g, '')}"`)
    .join(', ')}`;
}

export function invalidToken(ctx: GuardContext, resource: ResourceName, description: string): OAuthError {
  const e = new OAuthError('invalid_token', description);
  e.headers['www-authenticate'] = challenge(ctx, resource, { error: 'invalid_token', error_description: description });
  return e;
}

export function insufficientScope(
  ctx: GuardContext,
  resource: ResourceName,
  required: readonly Scope[],
  description = `This operation needs the scope${required.length > 1 ? 's' : ''} ${required.join(' ')}`,
): OAuthError {
  const e = new OAuthError('insufficient_scope', description);
  e.headers['www-authenticate'] = challenge(ctx, resource, { error: 'insufficient_scope', scope: required.join(' '), error_description: description });
  return e;
}

/** RFC 6750 §2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=" */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/**
 * The token an Authorization header carries, or undefined when the header is
 * not "Bearer <b64token>". The one place that reads the header: the scheme is
 * case-insensitive (RFC 7235 §2.1 "case-insensitive token") and the spaces
 * around the token do not count, so every way of writing one token gives it.
 */
export function bearerToken(authorization: string): string | undefined {
  return BEARER.exec(authorization)?.[1];
}

/** The token's identity: the SHA-256 under which the store keeps it. */
export function bearerTokenHash(authorization: string): string | undefined {
  const token = bearerToken(authorization);
  return token === undefined ? undefined : sha256(token);
}

/**
 * The one decision every protected operation goes through. Framework-free:
 * it reads the store and returns the caller or throws the OAuthError to send.
 * - no Authorization header → anonymous where allowed, else 401 invalid_request; never a challenge
 *   (docs/decisions.md: anonymous requests are served and never challenged);
 * - malformed, unknown, expired, revoked or wrong-audience token → 401 invalid_token;
 * - valid token without every required scope → 403 insufficient_scope.
 * Does NOT check the user's role: granted scopes were already intersected with it.
 */
export async function authorizeRequest(input: GuardInput, ctx: GuardContext): Promise<Caller> {
  if (input.tokenInQuery) {
    // RFC 9700 §2.4 / OAuth 2.1: tokens in URIs leak through logs and Referer; only the header is accepted.
    throw new OAuthError('invalid_request', 'Send the access token in the Authorization header, not in the query string or body');
  }
  if (input.authorization === undefined) {
    if (input.allowAnonymous) return { kind: 'anonymous' };
    // A tokenless request is never challenged (docs/decisions.md), so no WWW-Authenticate here:
    // the body says what is needed and where the metadata is.
    const needs = input.required.length ? ` with ${input.required.join(' ')}` : '';
    throw new OAuthError('invalid_request', `This operation needs a Bearer access token${needs}; see ${prmUrl(ctx.issuer, input.resource)}`, 401);
  }
  const hash = bearerTokenHash(input.authorization);
  if (hash === undefined) throw invalidToken(ctx, input.resource, 'The Authorization header must be "Bearer <access token>"');
  return checkToken(await ctx.store.tokens.find(hash), input, ctx);
}

/** The presented token's row (undefined when unknown) against the request: the caller, or the OAuthError to send. */
function checkToken(token: Token | undefined, input: GuardInput, ctx: GuardContext): Caller {
  if (!token || token.kind !== 'access') throw invalidToken(ctx, input.resource, 'The access token is not recognised');
  // Access tokens are never rotated: their state is active, revoked or expired.
  const state = tokenState(token, ctx.now);
  if (state === 'revoked') throw invalidToken(ctx, input.resource, 'The access token was revoked');
  if (state === 'expired') throw invalidToken(ctx, input.resource, 'The access token has expired');
  // RFC 8707 §2: a token bound to one resource is not accepted by another.
  if (token.resource !== null && token.resource !== resourceIdentifier(ctx.issuer, input.resource)) {
    throw invalidToken(ctx, input.resource, `The access token was issued for ${token.resource}`);
  }
  const scopes = grantedScopes(token.scope);
  if (!input.publicView && !input.required.every((s) => scopes.has(s))) throw insufficientScope(ctx, input.resource, input.required);
  return { kind: 'token', token, scopes, userId: token.userId, clientId: token.clientId };
}
