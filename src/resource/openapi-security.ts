import type { Scope } from '../access/scopes.ts';

export const OAUTH_SCHEME = 'lyceum_oauth';

/**
 * OpenAPI `security` for an operation: the scopes it needs and, when it also
 * serves anonymous callers, an empty requirement `{}` beside them.
 */
export function securityFor(scopes: readonly Scope[], publicView = false): Record<string, string[]>[] {
  return [{ [OAUTH_SCHEME]: [...scopes] }, ...(publicView ? [{}] : [])];
}
