import { McpServer } from '@modelcontextprotocol/server';
import { answerSetLevel } from './logging.ts';
import { registerPrompts } from './prompts.ts';
import { registerResources, type McpDocuments } from './resources.ts';
import { callTool, toolList } from './tool-list.ts';
import type { ToolAccess, ToolContext } from './tool.ts';
import { READONLY_HEADER, TOOLSET_NAMES, TOOLSETS_HEADER } from './toolsets.ts';

/** How long a client may keep a list (2026-07-28 `ttlMs`): lists change only with a deploy. */
const LIST_TTL_MS = 5 * 60_000;

const INSTRUCTIONS = `Tools are listed by what your token allows and by toolset (${TOOLSETS_HEADER}: ${TOOLSET_NAMES.join(', ')}, or all; ${READONLY_HEADER}: true for reads only). Without a token the catalog is open; call sign_in to sign in. Records of every area are reached with list_records, get_record, create_record, update_record and delete_record, keyed by area name or prefixed id. A call without the scope it needs answers HTTP 401 or 403 naming the scopes to ask for; how to get a token is in /.well-known/oauth-protected-resource/mcp. Resources (the data model, the OpenAPI document in parts, auth.md, published courses) need no sign-in.`;

/**
 * An MCP server for one request (the transport is stateless): it lists the
 * tools this caller's access shapes and runs any tool its token allows, and
 * serves the public resources and the prompts. The tool list is built once
 * per distinct access (tool-list.ts), not per request.
 */
export function buildMcpServer(ctx: ToolContext, access: ToolAccess, version: string, documents: McpDocuments, method: unknown): McpServer {
  const server = new McpServer(
    { name: 'lyceum', title: 'Lyceum school', version },
    {
      // MCP logging: "Servers that emit log message notifications MUST declare the logging capability".
      capabilities: { logging: {}, tools: { listChanged: false } },
      instructions: INSTRUCTIONS,
      // A list depends on the caller's token: only the caller may keep it. Resources are public.
      cacheHints: {
        'tools/list': { ttlMs: LIST_TTL_MS, cacheScope: 'private' },
        'prompts/list': { ttlMs: LIST_TTL_MS, cacheScope: 'public' },
        'resources/list': { ttlMs: LIST_TTL_MS, cacheScope: 'public' },
        'resources/templates/list': { ttlMs: LIST_TTL_MS, cacheScope: 'public' },
        'server/discover': { ttlMs: LIST_TTL_MS, cacheScope: 'public' },
      },
    },
  );
  server.server.setRequestHandler('tools/list', () => ({ tools: toolList(access) }));
  server.server.setRequestHandler('tools/call', (request, requestCtx) => callTool(ctx, request.params.name, request.params.arguments ?? {}, requestCtx));
  answerSetLevel(server);
  // A tool request reaches neither resources nor prompts, whose registration (a schema
  // per prompt argument, a handler per resource) is most of what building a server costs;
  // every other request, initialize and server/discover among them, gets all of it.
  if (method !== 'tools/list' && method !== 'tools/call') {
    registerResources(server, ctx, documents);
    registerPrompts(server, ctx);
  }
  // The tools, resources and prompts never change while the server runs, and a stateless
  // server has no stream to announce a change on: say so rather than the SDK's defaults.
  server.server.registerCapabilities({ resources: { subscribe: false, listChanged: false }, prompts: { listChanged: false } });
  return server;
}
