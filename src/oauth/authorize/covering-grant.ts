import { grantableScopes } from '../../access/roles.ts';
import type { Store, User } from '../../store/types.ts';
import type { AuthorizationRequest } from './validate-request.ts';

/**
 * RFC 8252 §8.6: a public native client's identity cannot be verified, so its
 * users see the consent page every time. Only confidential clients with a
 * prior grant covering the request skip it. A grant the person narrowed
 * covers only what they left ticked: asking for more shows the page again.
 */
export async function hasCoveringGrant(req: AuthorizationRequest, user: Pick<User, 'id' | 'role'>, store: Pick<Store, 'grants'>, now: number): Promise<boolean> {
  if (req.client.metadata.token_endpoint_auth_method === 'none') return false;
  const grant = await store.grants.find(user.id, req.client.id);
  // An ended consent covers nothing: the person is asked again, and chooses again.
  if (!grant || (grant.expiresAt !== null && now >= grant.expiresAt)) return false;
  const granted = new Set(grant.scope.split(' '));
  return grantableScopes(req.scopes, user.role).every((s) => granted.has(s));
}
