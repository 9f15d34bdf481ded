import type { Config } from '../../config/index.ts';
import type { ClientMetadata } from '../../store/types.ts';
import { OAuthError } from '../errors.ts';
import { MetadataRefusal, normaliseClientMetadata } from './client-metadata.ts';

/**
 * RFC 7591 §2 client metadata sent to the registration endpoint, read under
 * open registration's policy (client-metadata.ts: loopback redirect URIs
 * only, docs/decisions.md). Returns what will be stored and echoed; a refusal
 * is the RFC 7591 §3.2.2 error it names.
 */
export function validateClientMetadata(body: unknown, config: Pick<Config, 'loopbackHosts'>): ClientMetadata {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new OAuthError('invalid_request', 'The registration body must be a JSON object.');
  }
  try {
    return normaliseClientMetadata(body as Record<string, unknown>, 'registration', config.loopbackHosts);
  } catch (e) {
    if (e instanceof MetadataRefusal) throw new OAuthError(e.code, e.message);
    throw e;
  }
}
