import { randomUUID } from 'node:crypto';
import type { Deps } from '../../deps.ts';
import type { User } from '../../store/types.ts';
import { OAuthError } from '../errors.ts';
import { grantableScopes } from '../../access/roles.ts';
import { formatScope } from '../../access/scopes.ts';
import { newSecret, PREFIX, sha256 } from '../issued-tokens/secrets.ts';
import type { AuthorizationRequest } from './validate-request.ts';
import type { ConsentChoice } from './next-step.ts';
import { recordConsent } from './record-consent.ts';

/**
 * Mints a single-use code bound to the client, redirect URI, PKCE challenge,
 * granted scope, resource and nonce, and records the user's consent.
 * Granted scope = requested ∩ the user's role ∩ what the person ticked.
 */
export async function issueCode(req: AuthorizationRequest, user: User, authTime: number, deps: Deps, choice?: ConsentChoice): Promise<string> {
  const grantable = grantableScopes(req.scopes, user.role);
  if (grantable.length === 0) throw new OAuthError('invalid_scope', 'None of the requested scopes is available to this user.');
  // What the person ticked, never more than the role allows; without a choice (a covering grant), all of it.
  const granted = choice ? grantable.filter((s) => choice.scopes.includes(s)) : grantable;
  const scope = formatScope(granted);
  const code = newSecret(PREFIX.code);
  const now = deps.now();
  await deps.store.codes.save({
    hash: sha256(code),
    clientId: req.client.id,
    userId: user.id,
    redirectUri: req.redirectUri,
    scope,
    resource: req.resource,
    nonce: req.nonce ?? null,
    codeChallenge: req.codeChallenge,
    authTime,
    familyId: randomUUID(),
    expiresAt: now + deps.config.codeTtl * 1000,
    createdAt: now,
  });
  // The code is saved before the consent is recorded, never after: a disconnect racing this
  // request deletes the grant with the user's codes (GrantStore.delete), so at worst the grant
  // reappears with no code behind it, never a live code without its grant.
  await recordConsent(deps, { userId: user.id, clientId: req.client.id, scope, now }, choice && { ...choice, offered: grantable, operation: 'authorize' });
  return code;
}
