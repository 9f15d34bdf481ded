import type { McpServer } from '@modelcontextprotocol/server';
import { INVALID_PARAMS } from './json-rpc-error.ts';
import type { McpSdk } from './sdk.ts';

/**
 * Answers logging/setLevel: {} for a level, and -32602 for anything else
 * (MCP logging, "Error Handling": "Invalid log level: -32602 (Invalid
 * params)"). The server is stateless and sends no log notifications: the
 * level is acknowledged for the request that sets it, and nothing is kept.
 */
export function answerSetLevel(server: McpServer, sdk: Pick<McpSdk, 'loggingLevels' | 'ProtocolError' | 'z'>): void {
  server.server.removeRequestHandler('logging/setLevel');
  // The schema-taking form: the SDK's own schema would answer an unknown level -32603 before this runs.
  server.server.setRequestHandler('logging/setLevel', { params: sdk.z.looseObject({}) }, (params) => {
    const level = (params as { level?: unknown }).level;
    if (typeof level !== 'string' || !sdk.loggingLevels.includes(level)) {
      throw new sdk.ProtocolError(INVALID_PARAMS, `level must be one of ${sdk.loggingLevels.join(', ')}`);
    }
    return {};
  });
}
