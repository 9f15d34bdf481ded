import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps.ts';
import { INTROSPECTION_SCHEMA } from './schemas.ts';
import { declarePublicRoute } from '../http/routes/operation.ts';
import { resourcesFor } from './resources.ts';
import { ENDPOINTS } from './endpoints.ts';
import { authenticateClient } from './token-endpoint/client-auth.ts';
import { formBody, requiredParam } from './token-endpoint/form-params.ts';
import { readTokenState } from './issued-tokens/state.ts';

/**
 * POST /api/oauth/introspect (RFC 7662). The caller authenticates as a client
 * (client_secret_post, or a public client's client_id) and may introspect
 * only its own tokens: anything else is `{"active": false}`.
 */
export function registerIntrospectionRoute(app: FastifyInstance, deps: Deps): void {
  declarePublicRoute(app, { method: 'POST', path: ENDPOINTS.introspection, operationId: 'introspectToken', schema: INTROSPECTION_SCHEMA }, async (request, reply) => {
    reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    const body = formBody(request);
    const presented = requiredParam(body, 'token', 200);
    const client = await authenticateClient(request, body, deps);
    const read = await readTokenState(deps.store.tokens, presented, deps.now(), deps.config.refreshGrace);
    // RFC 7662 §2.2: "active" means the token "has been issued by this authorization server, has not been revoked
    // by the resource owner, and is within its given time window of validity". A rotated refresh token is still
    // honoured while a replay of it would get its successor back, and not a moment longer.
    const live = read && read.token.clientId === client.id && (read.state === 'active' || read.state === 'replayable');
    // RFC 7662 §2.2: "If the introspection call is properly authorized but the token is not active ...
    // the authorization server MUST return ... {"active": false}".
    if (!live) return { active: false };
    const { token } = read;
    const resources = resourcesFor(deps.config.issuer);
    return {
      active: true,
      scope: token.scope,
      client_id: token.clientId,
      sub: token.userId,
      exp: Math.floor(token.expiresAt / 1000),
      iat: Math.floor(token.createdAt / 1000),
      auth_time: Math.floor(token.authTime / 1000),
      iss: deps.config.issuer,
      // Access tokens are Bearer tokens; refresh tokens are named as such.
      token_type: token.kind === 'access' ? 'Bearer' : 'refresh_token',
      // RFC 8707: the resource binding; an unbound token is good for every Lyceum resource.
      aud: token.resource ?? [resources.api, resources.mcp],
    };
  });
}
