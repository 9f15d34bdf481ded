import { logActivity } from '../activity/record.ts';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps.ts';
import { REVOCATION_SCHEMA } from './schemas.ts';
import { declarePublicRoute } from '../http/routes/operation.ts';
import { ENDPOINTS } from './endpoints.ts';
import { OAuthError } from './errors.ts';
import { authenticateClient } from './token-endpoint/client-auth.ts';
import { formBody, param, requiredParam } from './token-endpoint/form-params.ts';
import { sha256 } from './issued-tokens/secrets.ts';

/** POST /api/oauth/revoke (RFC 7009). */
export function registerRevocationRoute(app: FastifyInstance, deps: Deps): void {
  declarePublicRoute(app, { method: 'POST', path: ENDPOINTS.revocation, operationId: 'revokeToken', schema: REVOCATION_SCHEMA }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const body = formBody(request);
    const token = requiredParam(body, 'token', 200);
    const hint = param(body, 'token_type_hint', 50);
    // RFC 7009 §2.2.1: unsupported_token_type for hints the server does not know.
    if (hint !== undefined && hint !== 'access_token' && hint !== 'refresh_token') {
      throw new OAuthError('unsupported_token_type', 'token_type_hint must be access_token or refresh_token');
    }
    const client = await authenticateClient(request, body, deps);
    const found = await deps.store.tokens.find(sha256(token));
    // RFC 7009 §2.2: "invalid tokens do not cause an error response" — unknown tokens answer 200.
    if (!found) return reply.code(200).send();
    // RFC 7009 §2.1: the server "verifies whether the token was issued to the client making the revocation request.
    // If this validation fails, the request is refused".
    if (found.clientId !== client.id) throw new OAuthError('invalid_request', 'The token was not issued to this client');
    const now = deps.now();
    // RFC 7009 §2.1: revoking a refresh token "SHOULD also invalidate all access tokens based on the same authorization grant".
    if (found.kind === 'refresh') await deps.store.tokens.revokeFamily(found.familyId, now);
    else await deps.store.tokens.revoke(found.hash, now);
    await logActivity(deps, { event: 'tokens.revoked', userId: found.userId, clientId: client.id, via: 'api', operation: 'revoke', fields: [found.kind] });
    request.log.info({ client_id: client.id, kind: found.kind }, 'token revoked');
    return reply.code(200).send();
  });
}
