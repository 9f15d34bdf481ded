import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.ts';
import { TOKEN_SCHEMA } from '../schemas.ts';
import { declarePublicRoute } from '../../http/routes/operation.ts';
import { ENDPOINTS } from '../endpoints.ts';
import { OAuthError } from '../errors.ts';
import { authenticateClient } from './client-auth.ts';
import { LAST_USED_RESOLUTION_MS } from '../../store/repositories/clients.ts';
import { formBody, param } from './form-params.ts';
import type { GrantHandler } from './grant-handler.ts';
import { authorizationCodeGrant } from './grants/authorization-code.ts';
import { refreshTokenGrant } from './grants/refresh-token.ts';
import { deviceCodeGrant } from './grants/device-code.ts';
import { AUTHORIZATION_SERVER, type GrantType } from '../../util/authorization-server.ts';

/** One handler for each grant type the authorization server supports: a missing one does not compile. */
const HANDLER_OF: { [G in GrantType]: GrantHandler & { grantType: G } } = {
  authorization_code: authorizationCodeGrant,
  refresh_token: refreshTokenGrant,
  'urn:ietf:params:oauth:grant-type:device_code': deviceCodeGrant,
};

export const GRANT_HANDLERS: readonly GrantHandler[] = AUTHORIZATION_SERVER.grantTypes.map((g) => HANDLER_OF[g]);

/** POST /api/oauth/token (RFC 6749 §3.2). */
export function registerTokenRoute(app: FastifyInstance, deps: Deps): void {
  declarePublicRoute(app, { method: 'POST', path: ENDPOINTS.token, operationId: 'requestToken', schema: TOKEN_SCHEMA }, async (request, reply) => {
    // RFC 6749 §5.1: "Cache-Control: no-store" on every response with tokens or credentials.
    reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
    const body = formBody(request);
    const grantType = param(body, 'grant_type', 100);
    if (!grantType) throw new OAuthError('invalid_request', 'grant_type is required');
    const handler = GRANT_HANDLERS.find((h) => h.grantType === grantType);
    if (!handler) throw new OAuthError('unsupported_grant_type', `grant_type ${grantType} is not supported`);
    const client = await authenticateClient(request, body, deps);
    // RFC 6749 §5.2 unauthorized_client: "not authorized to use this authorization grant type"
    if (!client.metadata.grant_types.includes(handler.grantType)) {
      throw new OAuthError('unauthorized_client', `This client did not register the ${grantType} grant`);
    }
    const response = await handler.handle({ request, body, client, deps });
    // Last use, for `lyceum clients list` and the purge of never-used clients; at most one write a
    // minute, and no statement at all when the client as just read was used within that minute.
    const now = deps.now();
    if (client.lastUsedAt === null || client.lastUsedAt === undefined || client.lastUsedAt <= now - LAST_USED_RESOLUTION_MS) await deps.store.clients.markUsed(client.id, now);
    return response;
  });
}
