import type { Config } from '../config/index.ts';
import { ENDPOINTS } from '../oauth/endpoints.ts';
import { AUTHORIZATION_SERVER as AS } from '../util/authorization-server.ts';
import { bullets, code } from './markdown.ts';

/** Examples of callbacks open registration refuses, as the apps that use them send them. */
const EDITOR_CALLBACK = 'cursor://anysphere.cursor-mcp/oauth/callback';
const HOSTED_CALLBACK = 'https://assistant.example/api/mcp/auth_callback';

/**
 * /auth.md: how each kind of client connects: a loopback client registers
 * itself; an app with an https or app-scheme callback is registered by the
 * school (`lyceum clients add`, src/cli/clients.ts, whose redirect URI rules
 * are src/oauth/operator-redirect-uri.ts).
 */
export function operatorClientsSection(config: Config): string {
  const confidential = AS.clientAuthMethods.filter((m) => m !== 'none');
  return bullets([
    `A CLI, desktop app or local agent that listens on loopback (${config.loopbackHosts.map(code).join(', ')}) registers itself at ${code(ENDPOINTS.registration)}: see the loopback rules above.`,
    `An app whose callback is https (a hosted app, e.g. ${code(HOSTED_CALLBACK)}) or a scheme of its own (an editor, e.g. ${code(EDITOR_CALLBACK)}) cannot register itself. The school registers it: \`lyceum clients add --name N --redirect-uri URI [--redirect-uri URI ...] [--confidential] [--scope S]\`, and gives the app the printed \`client_id\` (and, with \`--confidential\`, the \`client_secret\`, shown only then; Lyceum keeps its SHA-256).`,
    `Such a client uses the same flow: the authorization endpoint with PKCE ${AS.pkceMethods.map(code).join(', ')}; the browser comes back to the registered URI with \`code\`, \`state\` and \`iss\`, on a private-use scheme too; the token endpoint takes the \`code_verifier\`, plus \`client_secret\` in the body for a confidential client (${confidential.map(code).join(', ')}; HTTP Basic is not supported).`,
    'Its redirect URIs may be https with a host, a private-use scheme (RFC 8252 §7.1; a reverse domain name such as `com.example.app:/callback` is the recommended form, a single-label scheme is accepted) or loopback http. Plain http off loopback, fragments, `javascript:`, `data:`, `file:` and other schemes a browser acts on itself are refused.',
    'They are compared exactly as registered: no case folding, no default port, no added or removed trailing slash or query. Only a loopback http URI keeps the any-port rule.',
    'With `--scope`, the client may be granted those scopes only: a request asking for more is narrowed to them before the consent page (read the token response’s `scope`), and one asking for none of them gets `invalid_scope` on its redirect URI. A request without `scope` gets them all.',
    'The consent page and the connected-apps page say the school registered the app. These clients are never deleted for being unused; `lyceum clients delete` removes them.',
  ]);
}
