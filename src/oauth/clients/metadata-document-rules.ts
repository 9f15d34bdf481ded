/**
 * The rules of OAuth Client ID Metadata Documents
 * (draft-ietf-oauth-client-id-metadata-document): which client_id is a
 * Client Identifier URL, what such a URL may look like, and what the
 * document found there must say. Fetching and caching are in
 * metadata-document.ts; this module only judges.
 */
import type { ClientMetadata } from '../../store/types.ts';
import { AUTHORIZATION_SERVER as AS, type LoopbackHost } from '../../util/authorization-server.ts';
import { OAuthError } from '../errors.ts';
import { matchRegisteredRedirectUri } from '../loopback.ts';
import { MetadataRefusal, normaliseClientMetadata } from './client-metadata.ts';

const LIMITS = AS.limits;

const badClientId = (why: string) => new OAuthError('invalid_request', `client_id is a URL, so it must name a client metadata document: ${why}.`);

/**
 * The draft's Client Identifier URL: it "MUST use the https URL scheme",
 * "MUST NOT contain a userinfo component", "MUST contain a path component",
 * "MUST NOT contain single-dot or double-dot path components" and "MUST NOT
 * contain a fragment component". Since Client Identifier URLs "MUST be
 * compared using simple string comparison" and the document's client_id
 * "MUST also match the URL that the authorization server used to fetch the
 * document", the URL must also be written as a URL parser writes it, so the
 * URL fetched is, character for character, the client_id.
 */
export function checkClientIdUrl(clientId: string): URL {
  if (clientId.length > LIMITS.clientId) throw badClientId(`it may be at most ${LIMITS.clientId} characters`);
  if (!/^https:\/\//.test(clientId)) throw badClientId('it must be an https URL');
  if (clientId.includes('#')) throw badClientId('it must not have a fragment');
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    throw badClientId('it is not a valid URL');
  }
  // An empty user information part (https://@app.example/c.json) leaves both empty: the URL parser
  // drops the @, so the check below, that the client_id is written as the parser writes it, refuses it.
  if (url.username || url.password) throw badClientId('it must not carry a user name or password');
  // The path as written: the parsed URL's has its dot segments already resolved. No ^ is needed: the
  // client_id starts with https:// (checked above), so the first match is the one at its start.
  const path = /https:\/\/[^/?#]*(\/[^?#]*)?/.exec(clientId)![1] ?? '';
  // The path is empty or starts with /, so the first piece is empty: never a dot segment.
  if (path.split('/').some((s) => /^(\.|%2e){1,2}$/i.test(s))) throw badClientId('its path must not have . or .. segments');
  // The draft: a path of / "is NOT RECOMMENDED"; the MCP SDK refuses one too. Lyceum requires a real path.
  if (path === '' || path === '/') throw badClientId('it must have a path, such as https://app.example/oauth/client.json');
  if (url.href !== clientId) throw badClientId(`it must be written the way a URL parser writes it (${url.href})`);
  return url;
}

const badDocument = (url: string, why: string) => new OAuthError('invalid_client', `The client metadata document at ${url} cannot be used: ${why}.`);

/**
 * The document fetched from `url`, checked: a JSON object whose client_id
 * is the URL, read under the document policy (client-metadata.ts: a public
 * client; https or loopback redirect URIs). Returns the metadata Lyceum
 * stores for the client; throws invalid_client with the reason otherwise.
 */
export function checkMetadataDocument(url: string, body: Buffer, loopbackHosts: readonly LoopbackHost[]): ClientMetadata {
  let doc: unknown;
  try {
    doc = JSON.parse(body.toString('utf8'));
  } catch {
    throw badDocument(url, 'it is not JSON');
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw badDocument(url, 'it is not a JSON object');
  const d = doc as Record<string, unknown>;
  // The draft: its client_id "MUST match the Client Identifier URL ... using simple string comparison".
  if (d.client_id !== url) throw badDocument(url, 'its client_id is not the URL it was fetched from');
  try {
    return normaliseClientMetadata(d, 'document', loopbackHosts);
  } catch (e) {
    if (e instanceof MetadataRefusal) throw badDocument(url, e.message);
    throw e;
  }
}

/**
 * Whether a requested redirect_uri is one the document lists: an https one
 * exactly as written (RFC 9700 §2.1), a loopback one with any port (RFC 8252
 * §7.3: "The authorization server MUST allow any port to be specified at the
 * time of the request for loopback IP redirect URIs"), its host as written:
 * a document that lists http://localhost/callback accepts
 * http://localhost:53123/callback, not http://127.0.0.1:53123/callback.
 */
export function matchDocumentRedirectUri(requested: string, listed: readonly string[], loopbackHosts: readonly LoopbackHost[]): boolean {
  if (requested.startsWith('https://')) return listed.includes(requested);
  return matchRegisteredRedirectUri(requested, listed, loopbackHosts);
}

/** Every redirect URI the document lists goes to this computer: anything running on it could receive the code. */
export function onlyLoopbackRedirects(metadata: ClientMetadata): boolean {
  return metadata.redirect_uris.every((u) => u.startsWith('http://'));
}
