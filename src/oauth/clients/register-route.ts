import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.ts';
import { registrationSchema } from '../schemas.ts';
import { declarePublicRoute } from '../../http/routes/operation.ts';
import { rateLimitFor } from '../../http/requests/rate-limit.ts';
import { ENDPOINTS } from '../endpoints.ts';
import { OAuthError } from '../errors.ts';
import { newClientId, newSecret, PREFIX, sha256 } from '../issued-tokens/secrets.ts';
import { validateClientMetadata } from './validate-metadata.ts';

/**
 * The registration cap is reached. RFC 7591 §3.2.2 names errors about the
 * metadata ("invalid_client_metadata" and others) and allows others; this
 * is no fault of the metadata, and a client that read it as one would never
 * retry. The condition passes (the purge removes unused clients), so it is
 * 429 too_many_requests with Retry-After: the next purge, at the earliest.
 */
function registrationsFull(deps: Deps): OAuthError {
  const e = new OAuthError(
    'too_many_requests',
    `This server has reached its limit of ${deps.config.maxRegisteredClients} registered clients (MAX_REGISTERED_CLIENTS); retry later, once unused ones are removed.`,
  );
  e.headers['retry-after'] = String(deps.config.purgeInterval);
  return e;
}

/** POST /api/oauth/register — RFC 7591 dynamic client registration, open to loopback clients. */
export function registerRegistrationRoute(app: FastifyInstance, deps: Deps): void {
  const rateLimit = rateLimitFor(deps.config, 'register');
  const options = { bodyLimit: deps.config.registrationBodyLimit, config: { rateLimit } };
  declarePublicRoute(app, { method: 'POST', path: ENDPOINTS.registration, operationId: 'registerClient', schema: registrationSchema(deps.config.loopbackHosts), options }, async (request, reply) => {
    // RFC 7591 §3.1: the client sends its metadata "using the application/json format". Refusing forms
    // also keeps any web page from registering clients through a plain HTML form.
    if (!/^application\/json\b/i.test(request.headers['content-type'] ?? '')) {
      throw new OAuthError('invalid_request', 'Send the client metadata as application/json', 415);
    }
    const metadata = validateClientMetadata(request.body, deps.config);
    const clientId = newClientId();
    const secret = metadata.token_endpoint_auth_method === 'client_secret_post' ? newSecret(PREFIX.secret) : undefined;
    const now = deps.now();
    const created = await deps.store.clients.createWithinCap({ id: clientId, secretHash: secret ? sha256(secret) : null, metadata, createdAt: now }, deps.config.maxRegisteredClients);
    if (!created) throw registrationsFull(deps);
    request.log.info({ client_id: clientId, client_name: metadata.client_name }, 'client registered');
    // RFC 7591 §3.2.1: the response contains client_id, client_secret if issued, and all registered metadata.
    reply.code(201).header('cache-control', 'no-store').header('pragma', 'no-cache');
    return {
      client_id: clientId,
      client_id_issued_at: Math.floor(now / 1000),
      ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
      ...metadata,
    };
  });
}
