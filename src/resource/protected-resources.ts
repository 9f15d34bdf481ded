import { RESOURCE_PATHS, resourcesFor } from '../oauth/resources.ts';

export type ResourceName = 'api' | 'mcp';

/**
 * RFC 9728 §3.1: the metadata of a resource with a path lives at
 * /.well-known/oauth-protected-resource followed by that path.
 */
export const PRM_PATHS: Record<ResourceName, string> = {
  api: `/.well-known/oauth-protected-resource${RESOURCE_PATHS.api}`,
  mcp: `/.well-known/oauth-protected-resource${RESOURCE_PATHS.mcp}`,
};

export function resourceIdentifier(issuer: string, name: ResourceName): string {
  return resourcesFor(issuer)[name];
}

export function prmUrl(issuer: string, name: ResourceName): string {
  return issuer + PRM_PATHS[name];
}
