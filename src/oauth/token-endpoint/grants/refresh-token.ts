import type { FastifyRequest } from 'fastify';
import type { Deps } from '../../../deps.ts';
import type { Token } from '../../../store/types.ts';
import { OAuthError } from '../../errors.ts';
import { grantableScopes } from '../../../access/roles.ts';
import { formatScope, parseScope } from '../../../access/scopes.ts';
import { sha256 } from '../../issued-tokens/secrets.ts';
import { readTokenState, tokenState } from '../../issued-tokens/state.ts';
import { param, requiredParam } from '../form-params.ts';
import type { GrantHandler } from '../grant-handler.ts';
import { deriveSuccessorPair, tokenResponse } from '../issue-tokens.ts';
import { resolveTokenResource } from '../resource-param.ts';

const invalidGrant = (d: string) => new OAuthError('invalid_grant', d);

/**
 * A retired refresh token came back: RFC 9700 §4.14.2, "The authorization server cannot determine which
 * party submitted the invalid refresh token, but it will revoke the active refresh token." Every token of
 * the family goes, the successor included.
 */
async function endFamily(current: Token, now: number, clientId: string, request: FastifyRequest, deps: Deps): Promise<never> {
  const revoked = await deps.store.tokens.revokeFamily(current.familyId, now);
  request.log.warn({ client_id: clientId, revoked }, 'refresh token reused after rotation; its family was revoked');
  throw invalidGrant('The refresh token was already used');
}

/**
 * grant_type=refresh_token (RFC 6749 §6) with rotation: every use returns a
 * new refresh token and retires the old one, atomically. A replay inside the
 * grace window returns the same successor (two workers refreshing at once);
 * a replay after it, or once the successor was used, ends the whole family
 * (OAuth 2.0 Security BCP §4.14.2). The rule itself is tokenState's.
 */
export const refreshTokenGrant = {
  grantType: 'refresh_token',
  async handle({ request, body, client, deps }) {
    const presented = requiredParam(body, 'refresh_token', 200);
    const now = deps.now();
    const grace = deps.config.refreshGrace;
    const read = await readTokenState(deps.store.tokens, presented, now, grace);
    if (!read || read.token.kind !== 'refresh' || read.state === 'revoked') throw invalidGrant('The refresh token is invalid or was revoked');
    const current = read.token;
    // RFC 6749 §6: "validate the refresh token and ensure that it was issued to the authenticated client"
    if (current.clientId !== client.id) throw invalidGrant('The refresh token was issued to another client');
    if (read.state === 'expired') throw invalidGrant('The refresh token has expired');
    if (read.state === 'reused') return endFamily(current, now, client.id, request, deps);

    // Disconnecting an app deletes its grant and then revokes its tokens: a family whose
    // consent is gone must not live on through a token minted in between.
    const grant = await deps.store.grants.find(current.userId, client.id);
    if (!grant) throw invalidGrant('The user has disconnected this app');
    // The person chose how long the app may act for them; after it, only a new consent helps.
    if (grant.expiresAt !== null && now >= grant.expiresAt) throw invalidGrant('The person’s consent for this app has ended; ask them again');
    const user = await deps.store.users.findById(current.userId);
    if (!user) throw invalidGrant('The user no longer exists');
    // RFC 6749 §6: the requested scope "MUST NOT include any scope not originally granted"
    const original = parseScope(current.scope).scopes;
    const requestedRaw = param(body, 'scope');
    let scopes = original;
    if (requestedRaw !== undefined) {
      const requested = parseScope(requestedRaw);
      const extra = [...requested.unknown, ...requested.scopes.filter((s) => !original.includes(s))];
      if (extra.length > 0) throw new OAuthError('invalid_scope', `Not part of the original grant: ${extra.join(' ')}`);
      scopes = requested.scopes;
    }
    // The user's role may have changed since consent: never grant more than it now allows.
    const scope = formatScope(grantableScopes(scopes, user.role));
    if (!scope) throw new OAuthError('invalid_scope', 'None of the granted scopes is still available to this user');
    const resource = resolveTokenResource(body, current.resource, deps);

    // RFC 6749 §6: the new refresh token keeps the scope of the one it replaces; only the access token is narrowed.
    const pair = deriveSuccessorPair(
      { client, userId: current.userId, scope, refreshScope: current.scope, resource, familyId: current.familyId, authTime: current.authTime },
      presented,
      // Every refresh token is stored with a salt (issue-tokens.ts); only access tokens have none.
      current.salt!,
      deps,
    );
    // The store stamps the rotation with the clock read when it commits, so a rotation that waited
    // on a lock opens its grace window when it lands (tokenState).
    const result = await deps.store.tokens.rotate(current.hash, deps.now, pair.rows);
    if (result.status === 'rotated') return tokenResponse(pair, scope, deps.config.accessTokenTtl);
    // The other status, 'unusable': a revocation landed between the read above and the rotation.
    if (result.status === 'already_rotated') {
      // Decided again on the row the rotation saw: a racing refresh may have rotated it, or used its successor, since the read above.
      const successor = await deps.store.tokens.find(sha256(pair.refreshToken!));
      const access = await deps.store.tokens.find(sha256(pair.accessToken));
      if (tokenState(result.token, now, { graceSeconds: grace, successor }) === 'replayable' && access) {
        const expiresIn = Math.max(0, Math.floor((access.expiresAt - now) / 1000));
        return tokenResponse(pair, access.scope, expiresIn);
      }
      return endFamily(current, now, client.id, request, deps);
    }
    throw invalidGrant('The refresh token is invalid or was revoked');
  },
} satisfies GrantHandler;
