import type { Deps } from '../../deps.ts';
import { OAuthError } from '../errors.ts';
import { checkResource, resourcesFor } from '../resources.ts';
import type { FormParams } from './form-params.ts';

/**
 * RFC 8707 §2.2: a `resource` at the token endpoint may narrow an unbound
 * grant to one resource; for a bound grant it must name the same one.
 * Returns the resource the new token is bound to.
 */
export function resolveTokenResource(body: FormParams, bound: string | null, deps: Deps): string | null {
  const v = body.resource;
  if (v === undefined || v === '') return bound;
  if (typeof v !== 'string') throw new OAuthError('invalid_target', 'Send one resource per request');
  const check = checkResource(v, resourcesFor(deps.config.issuer));
  if (!check.ok) throw new OAuthError('invalid_target', check.reason);
  if (bound !== null && check.resource !== bound) {
    throw new OAuthError('invalid_target', `This grant is bound to ${bound}`);
  }
  return check.resource;
}
