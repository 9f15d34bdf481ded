import type { Config } from '../config/index.ts';
import { AUTHORIZATION_SERVER } from '../util/authorization-server.ts';
import { bullets, code, duration, fence } from './markdown.ts';

const CACHE = AUTHORIZATION_SERVER.limits.metadataDocumentCache;

/**
 * /auth.md: how a client that has no registration here connects by naming
 * its metadata document (draft-ietf-oauth-client-id-metadata-document), as
 * MCP clients such as Claude Code do. Values come from the live configuration.
 */
export function clientDocumentsSection(config: Config): string {
  const s = config.clientDocuments;
  const example = {
    client_id: 'https://app.example/oauth/client.json',
    client_name: 'Example CLI',
    redirect_uris: ['http://localhost/callback', 'http://127.0.0.1/callback'],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
  return [
    'A client may skip registration: its `client_id` is the https URL of a JSON document describing it, which Lyceum fetches (`client_id_metadata_document_supported` is `true` in the metadata). The client is public: it sends no secret and uses PKCE like any other. Example document, served at its own `client_id`:',
    fence('json', JSON.stringify(example, null, 2)),
    bullets([
      `The \`client_id\` URL: \`https\`, a path other than \`/\`, no fragment, no user name or password, no \`.\` or \`..\` segments, at most ${AUTHORIZATION_SERVER.limits.clientId} characters, and written as a URL parser writes it (${code('https://app.example:443/c.json')} is refused; write ${code('https://app.example/c.json')}). Otherwise: the error page with \`invalid_request\`, or \`invalid_client\` at the token endpoint.`,
      'The document: served with status 200 (a redirect is not followed), a JSON object whose `client_id` equals the URL character for character, with `client_name` and `redirect_uris`. `token_endpoint_auth_method` must be `none` or absent; `client_secret` must not appear. `grant_types` must include `authorization_code`; `refresh_token` gets refresh tokens.',
      `Fetched with a ${s.timeoutMs} ms deadline (CIMD_FETCH_TIMEOUT_MS), at most ${s.maxBytes} bytes (CIMD_MAX_BYTES), only from hosts that resolve to public addresses; the certificate must be one Node trusts.`,
      'Redirect URIs: `https://` ones are matched exactly as written; loopback `http://` ones (hosts of LOOPBACK_HOSTS) with any port, the host as the document writes it: a document listing `http://localhost/callback` accepts `http://localhost:53123/callback` but not `http://127.0.0.1:53123/callback`. Other entries are ignored; none left refuses the document.',
      `Kept for its \`Cache-Control: max-age\`, between ${duration(CACHE.min)} and ${duration(CACHE.max)} (no \`max-age\`, \`no-store\` or \`no-cache\`: ${duration(CACHE.min)}); a change to the document shows after that. A failed fetch or a refused document is remembered for ${duration(CACHE.failure)}: fix it, then retry after that.`,
      s.fetchesPerHostPerMinute > 0
        ? `At most ${s.fetchesPerHostPerMinute} documents are fetched from one host per minute, subdomains counting as their registrable domain (CIMD_FETCHES_PER_HOST_PER_MINUTE); past it the authorization page answers 429 \`too_many_requests\` with \`Retry-After\`.`
        : 'Fetches per host are not limited on this server (CIMD_FETCHES_PER_HOST_PER_MINUTE=0).',
      'A document that cannot be used is an HTML error page at the authorization endpoint (`invalid_client`, never a redirect) and `invalid_client` (401) at the token, revocation and introspection endpoints, which check the document again once the kept copy expires.',
      'The consent page names the host of the `client_id` and says that Lyceum has not reviewed the app; when every redirect URI is on the user’s computer it warns that any program there could receive the sign-in. Consent is asked every time, as for any public client.',
      'Tokens, consents and `/account/apps` treat the client like a registered one; disconnecting it there revokes its tokens.',
    ]),
  ].join('\n\n');
}
