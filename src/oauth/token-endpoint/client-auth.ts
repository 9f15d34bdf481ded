import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.ts';
import type { Client } from '../../store/types.ts';
import { OAuthError } from '../errors.ts';
import { sha256 } from '../issued-tokens/secrets.ts';
import { param, type FormParams } from './form-params.ts';
import { resolveClient } from '../clients/resolve-client.ts';
import { AUTHORIZATION_SERVER as AS } from '../../util/authorization-server.ts';

const invalidClient = (d: string) => new OAuthError('invalid_client', d);

/**
 * Authenticates the client at the token, revocation and introspection
 * endpoints. Public clients (`none`) send only client_id; confidential
 * clients (`client_secret_post`) add client_secret in the body
 * (RFC 6749 §2.3.1). HTTP Basic is not offered, so it is refused plainly.
 */
export async function authenticateClient(request: FastifyRequest, body: FormParams, deps: Deps): Promise<Client> {
  if (request.headers.authorization?.toLowerCase().startsWith('basic ')) {
    const e = invalidClient('HTTP Basic client authentication is not supported; send client_id (and client_secret) in the body');
    // RFC 6749 §5.2: a client that tried the Authorization header gets a challenge of the scheme it used.
    e.headers['www-authenticate'] = 'Basic realm="lyceum", charset="UTF-8"';
    throw e;
  }
  // RFC 6749 §5.2 invalid_client: "no client authentication included".
  const clientId = param(body, 'client_id', AS.limits.clientId);
  if (clientId === undefined) throw invalidClient('client_id is required');
  const secret = param(body, 'client_secret', 200);
  // A client_id that is a URL: its metadata document must still be usable (invalid_client if not).
  const client = await resolveClient(clientId, deps).catch((err: unknown) => {
    // RFC 6749 §5.2 invalid_client: "Client authentication failed (e.g., unknown client ...)"; a
    // client_id URL that cannot name a document is such an unknown client here.
    if (err instanceof OAuthError && err.code === 'invalid_request') throw invalidClient(err.description);
    throw err;
  });
  if (!client) throw invalidClient('Unknown client');
  if (client.metadata.token_endpoint_auth_method === 'none') {
    if (secret !== undefined) throw invalidClient('This client is public (token_endpoint_auth_method none) and has no secret');
    return client;
  }
  if (secret === undefined) throw invalidClient('client_secret is required for this client');
  const given = Buffer.from(sha256(secret));
  const stored = Buffer.from(client.secretHash ?? '');
  // timingSafeEqual throws on buffers of different lengths. The length check has a line of its own so that
  // the mark below covers it alone, not the comparison that refuses a wrong secret.
  if (given.length !== stored.length) throw invalidClient('Client authentication failed');
  if (!timingSafeEqual(given, stored)) throw invalidClient('Client authentication failed');
  return client;
}
