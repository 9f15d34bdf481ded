import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { documented } from '../http/routes/route-docs.ts';
import type { Deps } from '../deps.ts';
import { declarePublicRoute } from '../http/routes/operation.ts';
import { ENDPOINTS } from '../oauth/endpoints.ts';
import type { KeyRing } from '../keys/keyring.ts';
import { PRM_PATHS } from '../resource/protected-resources.ts';
import { authorizationServerMetadata, protectedResourceMetadata } from './metadata.ts';
import { METADATA_PATHS } from './paths.ts';

/**
 * A document that depends only on the configuration, serialized once: each
 * request sends the same JSON text with its cache headers, at once (a
 * synchronous handler: nothing to wait for).
 */
function staticJson(document: unknown) {
  const body = JSON.stringify(document);
  return (_request: unknown, reply: FastifyReply) => {
    reply.header('cache-control', 'public, max-age=300').type('application/json; charset=utf-8').send(body);
  };
}

/** The schema of a document, read off an instance of it: the description follows the code that builds it. */
function schemaOf(value: unknown): z.ZodType {
  if (Array.isArray(value)) return z.array(value.length > 0 ? schemaOf(value[0]) : z.unknown());
  if (value !== null && typeof value === 'object') return z.object(Object.fromEntries(Object.entries(value).map(([k, v]) => [k, schemaOf(v)])));
  if (typeof value === 'number') return Number.isInteger(value) ? z.int() : z.number();
  if (typeof value === 'boolean') return z.boolean();
  return z.string();
}

const documentSchema = (summary: string, description: string, example: unknown, produces?: string) => ({
  tags: ['discovery'],
  summary,
  description,
  ...(produces ? { produces: [produces] } : {}),
  response: { 200: documented(schemaOf(example), summary) },
});

/** The well-known documents. Any other /.well-known path falls to the JSON 404. */
export function registerDiscoveryRoutes(app: FastifyInstance, deps: Deps, keys: KeyRing): void {
  const asExample = authorizationServerMetadata(deps.config.issuer);
  const prmExample = protectedResourceMetadata(deps.config.issuer, 'api');
  declarePublicRoute(
    app,
    {
      method: 'GET',
      path: METADATA_PATHS.authorizationServer,
      operationId: 'getAuthorizationServerMetadata',
      schema: documentSchema('Authorization server metadata', 'RFC 8414: every endpoint, grant type, scope and client authentication method; authoritative if other documents disagree.', asExample),
    },
    staticJson(asExample),
  );
  declarePublicRoute(
    app,
    {
      method: 'GET',
      path: METADATA_PATHS.openidConfiguration,
      operationId: 'getOpenIdConfiguration',
      schema: documentSchema('OpenID Connect discovery', 'OpenID Connect Discovery 1.0 §3: the same document as the authorization server metadata.', asExample),
    },
    staticJson(asExample),
  );
  declarePublicRoute(
    app,
    {
      method: 'GET',
      path: PRM_PATHS.api,
      operationId: 'getApiResourceMetadata',
      schema: documentSchema('Protected resource metadata of the API', 'RFC 9728: resource is the issuer; authorization_servers[0] is the issuer; lists every scope.', prmExample),
    },
    staticJson(prmExample),
  );
  declarePublicRoute(
    app,
    {
      method: 'GET',
      path: PRM_PATHS.mcp,
      operationId: 'getMcpResourceMetadata',
      schema: documentSchema('Protected resource metadata of the MCP server', 'RFC 9728: resource is {issuer}/mcp; lists only the scopes the MCP tools use.', prmExample),
    },
    staticJson(protectedResourceMetadata(deps.config.issuer, 'mcp')),
  );
  declarePublicRoute(
    app,
    {
      method: 'GET',
      path: ENDPOINTS.jwks,
      operationId: 'getJwks',
      schema: documentSchema(
        'ID token signing keys',
        'JSON Web Key Set (RFC 7517) with the public keys of the ID token signatures; retired keys stay until their tokens expire.',
        { keys: [{ kty: 'RSA', kid: 'key id', alg: 'RS256', use: 'sig', n: 'modulus', e: 'AQAB' }] },
        'application/jwk-set+json',
      ),
    },
    async (_req, reply) => {
      // Short cache: verifiers must see a rotated key soon after `lyceum keys rotate`.
      reply.header('cache-control', 'public, max-age=60').type('application/jwk-set+json; charset=utf-8');
      return keys.jwks();
    },
  );
}
