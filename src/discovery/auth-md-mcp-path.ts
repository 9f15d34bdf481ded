import type { Config } from '../config/index.ts';
import { ENDPOINTS } from '../oauth/endpoints.ts';
import { ROLE_SCOPES } from '../access/roles.ts';
import type { Scope } from '../access/scopes.ts';
import { insufficientScope, type GuardContext } from '../resource/guard.ts';
import { PRM_PATHS } from '../resource/protected-resources.ts';
import type { Store } from '../store/types.ts';
import { TOOL_SCOPES, toolByName } from '../mcp/tools/index.ts';
import { code, fence } from './markdown.ts';
import { READONLY_HEADER as READONLY_HEADER_NAME, TOOLSET_NAMES, TOOLSETS_HEADER as TOOLSETS_HEADER_NAME } from '../mcp/toolsets.ts';
import { DOCUMENT_PATHS, METADATA_PATHS } from './paths.ts';

/** The two tools the path calls: one for staff, one for anyone signed in. */
const STAFF_TOOL = 'get_course_progress';
const LEARNER_TOOL = 'get_my_account';

function scopesOf(name: string): readonly Scope[] {
  const tool = toolByName(name);
  if (!tool) throw new Error(`auth.md names the MCP tool ${name}, which does not exist`);
  return tool.scopes;
}

/**
 * An agent's path at /mcp from first contact to a signed-in tool call: what
 * the MCP SDK clients do by themselves, written out so that a person wiring
 * up another client can follow each request.
 */
export function mcpPathSection(config: Config): string {
  const issuer = config.issuer;
  const mcp = issuer + DOCUMENT_PATHS.mcp;
  const staff = scopesOf(STAFF_TOOL);
  const learner = scopesOf(LEARNER_TOOL);
  const studentGets = TOOL_SCOPES.filter((s) => ROLE_SCOPES.student.includes(s));
  const ctx = { issuer, now: 0, store: undefined as unknown as Store } satisfies GuardContext;
  const challenge = insufficientScope(ctx, 'mcp', staff).headers['www-authenticate'];
  const rpc = (id: number, method: string, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id, method, params });
  const post = (body: string, token?: string) =>
    `curl -s ${mcp} -H 'content-type: application/json' -H 'accept: application/json, text/event-stream'${token ? ` -H "authorization: Bearer ${token}"` : ''} -d '${body}'`;
  const steps: [string, string][] = [
    [
      'Connect without a token',
      `${code(mcp)} speaks Streamable HTTP without sessions, MCP 2026-07-28 and the 2025 revisions. \`initialize\` (or \`server/discover\`), \`tools/list\`, resources, prompts and the catalog tools answer anyone. Without a token \`tools/list\` holds the catalog tools and \`sign_in\`, whose call starts the sign-in.\n\n${fence('sh', post(rpc(1, 'tools/list', {})))}`,
    ],
    [
      'Choose the tools you see',
      `A signed-in caller's list holds only the tools its token's scopes allow, from the toolsets of its role: a student gets the catalog and ${code('learner')}; staff get the catalog, ${code('learner')}, ${code('courses')}, ${code('students')}, ${code('commerce')}, ${code('community')} and ${code('analytics')}. The header ${code(TOOLSETS_HEADER_NAME)} chooses others (${TOOLSET_NAMES.map(code).join(', ')}, or ${code('all')}), and ${code(READONLY_HEADER_NAME + ': true')} keeps only tools that change nothing. Any tool the token allows can be called whether it is listed or not. Records of every area are reached by five tools (\`list_records\`, \`get_record\`, \`create_record\`, \`update_record\`, \`delete_record\`) keyed by area or prefixed id.\n\nClaude Code:\n\n${fence('console', `claude mcp add --transport http lyceum ${mcp} --header "${TOOLSETS_HEADER_NAME}: courses,students"`)}\n\nVS Code (\`.vscode/mcp.json\`; Cursor's \`.cursor/mcp.json\` names the key \`mcpServers\`):\n\n${fence('json', JSON.stringify({ servers: { lyceum: { type: 'http', url: mcp, headers: { [TOOLSETS_HEADER_NAME]: 'courses,students', [READONLY_HEADER_NAME]: 'true' } } } }, null, 2))}`,
    ],
    [
      'Call a tool that needs a sign-in',
      `Calling ${code(STAFF_TOOL)} (scope ${staff.map(code).join(' ')}) without a token answers HTTP 401 \`invalid_request\`. The body names the scopes and the metadata; as everywhere on this server, a request without a token is never challenged with \`WWW-Authenticate\`.`,
    ],
    [
      'Read the metadata',
      `The protected-resource metadata ${code(issuer + PRM_PATHS.mcp)} (RFC 9728) names the resource ${code(mcp)}, this issuer, and in \`scopes_supported\` every scope a tool uses. The authorization-server metadata ${code(issuer + METADATA_PATHS.authorizationServer)} (RFC 8414) names the endpoints.`,
    ],
    [
      'Register and sign in',
      `A local agent registers itself at ${code(issuer + ENDPOINTS.registration)} with a loopback redirect URI (see "Loopback redirect URIs"); an app with an https or app-scheme callback uses the \`client_id\` the school gave it. It opens ${code(issuer + ENDPOINTS.authorization)} with PKCE S256, \`resource=${mcp}\` and the scopes it wants: the PRM's \`scopes_supported\` is a good default. The person signs in and approves; the token holds what their role may have. A student's token gets ${studentGets.map(code).join(' and ')}, which the \`*_my_*\` tools need.`,
    ],
    [
      'Exchange the code and call the tool',
      `The code is exchanged at ${code(issuer + ENDPOINTS.token)} with the \`code_verifier\` and the same \`resource\`. The access token is bound to ${code(mcp)}: the REST API refuses it, and a token bound to the API is refused here.\n\n${fence('sh', post(rpc(2, 'tools/call', { name: LEARNER_TOOL, arguments: {} }), '$ACCESS_TOKEN'))}\n\n${code(LEARNER_TOOL)} needs ${learner.map(code).join(' ')}.`,
    ],
    [
      'Ask for more when a call is refused',
      `A token without a tool's scope gets HTTP 403 with a challenge naming every scope the call needs:\n\n${fence('http', `HTTP/1.1 403 Forbidden\nWWW-Authenticate: ${challenge}`)}\n\nThe client authorizes again with the scopes it holds plus those named (a refresh never widens a grant). The refresh grant, with \`resource=${mcp}\`, renews an expired access token.`,
    ],
  ];
  return steps.map(([title, prose], i) => `### ${i + 1}. ${title}\n\n${prose}`).join('\n\n');
}
