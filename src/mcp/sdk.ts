import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export interface McpSdk {
  McpServer: typeof McpServer;
  StreamableHTTPServerTransport: typeof StreamableHTTPServerTransport;
}

let loading: Promise<McpSdk> | undefined;

/**
 * The MCP SDK, loaded on the first /mcp request rather than at start. With
 * what it pulls in (zod 3 and zod-to-json-schema, Hono's Node adapter) it
 * took about 0.1 s and 10 MB of every start, for an endpoint that many
 * deployments call rarely. The first MCP request pays the load once; a
 * failed load is retried on the next one.
 */
export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= Promise.all([import('@modelcontextprotocol/sdk/server/mcp.js'), import('@modelcontextprotocol/sdk/server/streamableHttp.js')]).then(
    ([mcp, http]) => ({ McpServer: mcp.McpServer, StreamableHTTPServerTransport: http.StreamableHTTPServerTransport }),
    (err: unknown) => {
      loading = undefined;
      throw err;
    },
  );
  return loading;
}
