import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.ts';
import { formatScope } from '../../access/scopes.ts';
import { declarePublicRoute } from '../../http/routes/operation.ts';
import { rateLimitFor } from '../../http/requests/rate-limit.ts';
import { AUTHORIZATION_SERVER as AS, DEVICE_CODE_GRANT } from '../../util/authorization-server.ts';
import { checkResourceParam, checkScope } from '../authorize/validate-request.ts';
import { ENDPOINTS } from '../endpoints.ts';
import { OAuthError } from '../errors.ts';
import { newSecret, PREFIX, sha256 } from '../issued-tokens/secrets.ts';
import { DEVICE_AUTHORIZATION_SCHEMA } from '../schemas.ts';
import { authenticateClient } from '../token-endpoint/client-auth.ts';
import { formBody } from '../token-endpoint/form-params.ts';
import { newUserCode, normaliseUserCode, userCodeHash } from './user-code.ts';

const FLOW = AS.deviceFlow;
/** New user codes tried before giving up: with 20^8 codes, a second clash means something is wrong. */
const USER_CODE_ATTEMPTS = 3;

/** RFC 8628 §3.2 device authorization response. */
export interface DeviceAuthorizationResponse {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

/**
 * POST /api/oauth/device_authorization (RFC 8628 §3.1): a device with no
 * browser asks to sign a person in. It gets a device code to poll the token
 * endpoint with and a short user code for the person to type at the
 * verification page, on any device with a browser.
 */
export function registerDeviceAuthorizationRoute(app: FastifyInstance, deps: Deps): void {
  const options = { config: { rateLimit: rateLimitFor(deps.config, 'device') } };
  declarePublicRoute(
    app,
    { method: 'POST', path: ENDPOINTS.deviceAuthorization, operationId: 'requestDeviceAuthorization', schema: DEVICE_AUTHORIZATION_SCHEMA, options },
    async (request, reply): Promise<DeviceAuthorizationResponse> => {
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      const body = formBody(request);
      // RFC 8628 §3.1: "The client authentication requirements of Section 3.2.1 of [RFC6749] apply".
      const client = await authenticateClient(request, body, deps);
      if (!client.metadata.grant_types.includes(DEVICE_CODE_GRANT)) {
        throw new OAuthError('unauthorized_client', `This client did not register the ${DEVICE_CODE_GRANT} grant; register one whose grant_types include it`);
      }
      const scope = formatScope(checkScope(body, client));
      const resource = checkResourceParam(body, deps);
      const deviceCode = newSecret(PREFIX.deviceCode);
      const now = deps.now();
      for (let attempt = 0; attempt < USER_CODE_ATTEMPTS; attempt++) {
        const userCode = newUserCode();
        const created = await deps.store.deviceAuthorizations.create({
          hash: sha256(deviceCode),
          userCodeHash: userCodeHash(normaliseUserCode(userCode)!),
          clientId: client.id,
          scope,
          resource,
          status: 'pending',
          userId: null,
          authTime: null,
          familyId: randomUUID(),
          interval: FLOW.interval,
          lastPolledAt: null,
          expiresAt: now + FLOW.expiresIn * 1000,
          createdAt: now,
        });
        if (!created) continue;
        request.log.info({ client_id: client.id }, 'device authorization started');
        const page = deps.config.issuer + ENDPOINTS.deviceVerification;
        return {
          device_code: deviceCode,
          user_code: userCode,
          verification_uri: page,
          verification_uri_complete: `${page}?user_code=${userCode}`,
          expires_in: FLOW.expiresIn,
          interval: FLOW.interval,
        };
      }
      throw new Error('no free user code after several attempts');
    },
  );
}
