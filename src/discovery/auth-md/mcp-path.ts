import { ROLE_SCOPES } from '../../access/roles.ts';
import type { Scope } from '../../access/scopes.ts';
import { insufficientScope, type GuardContext } from '../../resource/guard.ts';
import type { Store } from '../../store/types.ts';
import { TOOL_SCOPES, toolByName } from '../../mcp/tools/index.ts';
import { defaultToolsets, READONLY_HEADER, TOOLSET_NAMES, TOOLSETS_HEADER } from '../../mcp/toolsets.ts';

/** The two tools the path calls: one for staff, one for anyone signed in. */
const STAFF_TOOL = 'get_course_progress';
const LEARNER_TOOL = 'get_my_account';

function scopesOf(name: string): readonly Scope[] {
  const tool = toolByName(name);
  if (!tool) throw new Error(`auth.md names the MCP tool ${name}, which does not exist`);
  return tool.scopes;
}

/** The toolsets a signed-in caller gets without choosing, the catalog (which everyone gets) left out. */
const signedInToolsets = (staff: boolean) => {
  const everyone = defaultToolsets(true, false);
  return defaultToolsets(false, staff).filter((t) => !everyone.includes(t));
};

/**
 * The values of "An MCP agent, from first contact to a tool call"
 * (template.md): what the MCP SDK clients do by themselves, written out so
 * that a person wiring up another client can follow each request.
 */
export function mcpPathView(issuer: string, mcpUrl: string) {
  const staffScopes = scopesOf(STAFF_TOOL);
  const ctx = { issuer, now: 0, store: undefined as unknown as Store } satisfies GuardContext;
  const rpc = (id: number, method: string, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id, method, params });
  const post = (body: string, token?: string) =>
    `curl -s ${mcpUrl} -H 'content-type: application/json' -H 'accept: application/json, text/event-stream'${token ? ` -H "authorization: Bearer ${token}"` : ''} -d '${body}'`;
  return {
    listTools: post(rpc(1, 'tools/list', {})),
    callTool: post(rpc(2, 'tools/call', { name: LEARNER_TOOL, arguments: {} }), '$ACCESS_TOKEN'),
    studentToolsets: signedInToolsets(false),
    staffToolsets: signedInToolsets(true),
    toolsets: TOOLSET_NAMES,
    toolsetsHeader: TOOLSETS_HEADER,
    readonlyHeader: READONLY_HEADER,
    vscodeConfig: JSON.stringify({ servers: { lyceum: { type: 'http', url: mcpUrl, headers: { [TOOLSETS_HEADER]: 'courses,students', [READONLY_HEADER]: 'true' } } } }, null, 2),
    staffTool: STAFF_TOOL,
    staffScopes,
    learnerTool: LEARNER_TOOL,
    learnerScopes: scopesOf(LEARNER_TOOL),
    studentScopes: TOOL_SCOPES.filter((s) => ROLE_SCOPES.student.includes(s)),
    challenge: insufficientScope(ctx, 'mcp', staffScopes).headers['www-authenticate'],
  };
}
