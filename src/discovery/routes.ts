import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Deps } from '../deps.ts';
import { ENDPOINTS } from '../oauth/endpoints.ts';
import type { KeyRing } from '../oidc/keyring.ts';
import { PRM_PATHS } from '../resource/protected-resources.ts';
import { authorizationServerMetadata, protectedResourceMetadata } from './metadata.ts';

const cacheable = (reply: FastifyReply) => reply.header('cache-control', 'public, max-age=300');

/** The well-known documents. Any other /.well-known path falls to the JSON 404. */
export function registerDiscoveryRoutes(app: FastifyInstance, deps: Deps, keys: KeyRing): void {
  const asMetadata = async (_req: unknown, reply: FastifyReply) => {
    cacheable(reply);
    return authorizationServerMetadata(deps.config.issuer);
  };
  app.get('/.well-known/oauth-authorization-server', asMetadata);
  app.get('/.well-known/openid-configuration', asMetadata);
  app.get(PRM_PATHS.api, async (_req, reply) => {
    cacheable(reply);
    return protectedResourceMetadata(deps.config.issuer, 'api');
  });
  app.get(PRM_PATHS.mcp, async (_req, reply) => {
    cacheable(reply);
    return protectedResourceMetadata(deps.config.issuer, 'mcp');
  });
  app.get(ENDPOINTS.jwks, async (_req, reply) => {
    // Short cache: verifiers must see a rotated key soon after `lyceum keys rotate`.
    reply.header('cache-control', 'public, max-age=60').type('application/jwk-set+json; charset=utf-8');
    return keys.jwks();
  });
}
