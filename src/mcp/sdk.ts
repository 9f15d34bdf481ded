import type { classifyInboundRequest, completable, createMcpHandler, McpServer, ProtocolError, ResourceNotFoundError, ResourceTemplate, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import type { Zod } from './tool.ts';

export interface McpSdk {
  McpServer: typeof McpServer;
  /** Serves the 2026-07-28 revision, one stateless request at a time. */
  createMcpHandler: typeof createMcpHandler;
  /** Serves one 2025-era request, stateless. */
  WebStandardStreamableHTTPServerTransport: typeof WebStandardStreamableHTTPServerTransport;
  /**
   * Which revision a request speaks (2025: an initialize handshake, no
   * per-request _meta; 2026-07-28: _meta on every request), or the error the
   * SDK answers it with: a bad envelope, an unknown version, Mcp-Method or
   * Mcp-Name headers that do not match the body.
   */
  classifyInboundRequest: typeof classifyInboundRequest;
  /** Resource templates with list and completion callbacks (resources.ts). */
  ResourceTemplate: typeof ResourceTemplate;
  /** A JSON-RPC error a handler answers with, its code and message sent as they are. */
  ProtocolError: typeof ProtocolError;
  /** A resource that does not exist: JSON-RPC -32602 with the URI (MCP 2026-07-28, for every revision). */
  ResourceNotFoundError: typeof ResourceNotFoundError;
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
 * what it pulls in it made every start slower and larger, for an endpoint
 * that many deployments call rarely; zod comes with it. The first MCP
 * request pays the load once; a failed load is retried on the next one.
 */
export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= Promise.all([import('@modelcontextprotocol/server'), import('zod')]).then(
    ([server, zod]) => ({
      McpServer: server.McpServer,
      createMcpHandler: server.createMcpHandler,
      WebStandardStreamableHTTPServerTransport: server.WebStandardStreamableHTTPServerTransport,
      classifyInboundRequest: server.classifyInboundRequest,
      ResourceTemplate: server.ResourceTemplate,
      completable: server.completable,
      ProtocolError: server.ProtocolError,
      ResourceNotFoundError: server.ResourceNotFoundError,
      loggingLevels: ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'],
      z: zod.z,
    }),
    (err: unknown) => {
      loading = undefined;
      throw err;
    },
  );
  return loading;
}
