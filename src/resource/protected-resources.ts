import { resourcesFor } from '../oauth/resources.ts';
import type { Scope } from '../access/scopes.ts';

export type ResourceName = 'api' | 'mcp';

/**
 * RFC 9728 §3.1: the metadata of a resource with a path lives at
 * /.well-known/oauth-protected-resource followed by that path.
 */
export const PRM_PATHS: Record<ResourceName, string> = {
  api: '/.well-known/oauth-protected-resource',
  mcp: '/.well-known/oauth-protected-resource/mcp',
};

export function resourceIdentifier(issuer: string, name: ResourceName): string {
  return resourcesFor(issuer)[name];
}

export function prmUrl(issuer: string, name: ResourceName): string {
  return issuer + PRM_PATHS[name];
}

/**
 * Scopes each resource's operations declare. Routes and tools register here
 * when they are declared, so the PRM documents list exactly what is used.
 */
const declared: Record<ResourceName, Set<Scope>> = { api: new Set(), mcp: new Set() };

export function declareScopes(resource: ResourceName, scopes: readonly Scope[]): void {
  for (const s of scopes) declared[resource].add(s);
}

export function declaredScopes(resource: ResourceName): Scope[] {
  return [...declared[resource]];
}
