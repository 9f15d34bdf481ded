import { ProtocolError, type McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { INVALID_PARAMS } from './json-rpc-error.ts';

/** The levels of logging/setLevel (RFC 5424's syslog severities, mildest first). */
const LOGGING_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/**
 * Answers logging/setLevel: {} for a level, and -32602 for anything else
 * (MCP logging, "Error Handling": "Invalid log level: -32602 (Invalid
 * params)"). The server is stateless and sends no log notifications: the
 * level is acknowledged for the request that sets it, and nothing is kept.
 */
export function answerSetLevel(server: McpServer): void {
  server.server.removeRequestHandler('logging/setLevel');
  // The schema-taking form: the SDK's own schema would answer an unknown level -32603 before this runs.
  server.server.setRequestHandler('logging/setLevel', { params: z.looseObject({}) }, (params) => {
    const level = (params as { level?: unknown }).level;
    if (typeof level !== 'string' || !LOGGING_LEVELS.includes(level)) {
      throw new ProtocolError(INVALID_PARAMS, `level must be one of ${LOGGING_LEVELS.join(', ')}`);
    }
    return {};
  });
}
