import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { INVALID_PARAMS, JsonRpcError } from './json-rpc-error.ts';
import type { McpSdk } from './sdk.ts';

/**
 * Answers logging/setLevel: {} for a level, and -32602 for anything else
 * (MCP logging, "Error Handling": "Invalid log level: -32602 (Invalid
 * params)"); the SDK's own handler answers an unknown level -32603. The
 * server is stateless and sends no log notifications: the level is
 * acknowledged for the request that sets it, and nothing is kept.
 */
export function answerSetLevel(server: McpServer, sdk: Pick<McpSdk, 'z' | 'loggingLevels'>): void {
  const { z, loggingLevels } = sdk;
  const request = z.object({ method: z.literal('logging/setLevel'), params: z.unknown().optional() });
  server.server.removeRequestHandler('logging/setLevel');
  server.server.setRequestHandler(request, ({ params }) => {
    const level = typeof params === 'object' && params !== null ? (params as { level?: unknown }).level : undefined;
    if (typeof level !== 'string' || !loggingLevels.includes(level)) {
      throw new JsonRpcError(INVALID_PARAMS, `level must be one of ${loggingLevels.join(', ')}`);
    }
    return {};
  });
}
