import type { Deps } from '../../deps.ts';
import type { Client } from '../../store/types.ts';
import { isClientIdUrl } from '../../util/client-id-url.ts';

/**
 * The client a client_id names, for the authorization, token, revocation
 * and introspection endpoints alike: a registered one from the store, or,
 * for a client_id that is an https URL, the one its metadata document
 * describes. Such a client is kept as a row of its own too (its URL is its
 * id), refreshed whenever the document is fetched, so its codes, tokens and
 * consents are stored, listed and revoked like any other client's.
 * Undefined: no client has this id. Throws the OAuthError of a metadata
 * document that cannot be used.
 */
export async function resolveClient(clientId: string, deps: Deps): Promise<Client | undefined> {
  if (!isClientIdUrl(clientId)) return deps.store.clients.find(clientId);
  const { metadata, fetched } = await deps.clientDocuments.read(clientId);
  let stored = fetched ? undefined : await deps.store.clients.find(clientId);
  // Fetched just now, or its row is gone (the purge drops clients that never obtained a token).
  if (!stored) {
    await deps.store.clients.saveFromDocument(clientId, metadata, deps.now());
    stored = await deps.store.clients.find(clientId);
  }
  // The document this instance holds is what the client says it is, whatever another instance stored.
  return stored && { ...stored, metadata };
}
