import type { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import type { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Zod } from './tool.ts';

export interface McpSdk {
  McpServer: typeof McpServer;
  StreamableHTTPServerTransport: typeof StreamableHTTPServerTransport;
  /** Resource templates with list and completion callbacks (resources.ts). */
  ResourceTemplate: typeof ResourceTemplate;
  /** Marks a prompt argument as completable (prompts.ts). */
  completable: typeof completable;
  /** The log levels of logging/setLevel (RFC 5424's, in order of severity). */
  loggingLevels: readonly string[];
  /** The zod the tools' inputs are built with (tool.ts). */
  z: Zod;
}

let loading: Promise<McpSdk> | undefined;

/**
 * The MCP SDK, loaded on the first /mcp request rather than at start. With
 * what it pulls in (zod 3 and zod-to-json-schema, Hono's Node adapter) it
 * made every start slower and larger, for an endpoint that many deployments
 * call rarely. The zod of the tools' inputs comes with it: its full build,
 * with every locale, was compiled and run at every start too. The first
 * MCP request pays the load once; a failed load is retried on the next one.
 */
export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/mcp.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/server/completable.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('zod'),
  ]).then(
    ([mcp, http, completion, types, zod]) => ({
      McpServer: mcp.McpServer,
      StreamableHTTPServerTransport: http.StreamableHTTPServerTransport,
      ResourceTemplate: mcp.ResourceTemplate,
      completable: completion.completable,
      loggingLevels: types.LoggingLevelSchema.options,
      z: zod.z,
    }),
    (err: unknown) => {
      loading = undefined;
      throw err;
    },
  );
  return loading;
}
