/**
 * A JSON-RPC error a handler answers with: the SDK sends `code` and `message`
 * as they are (its own McpError would put "MCP error <code>:" in the message,
 * which clients add again when they show it).
 */
export class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** JSON-RPC 2.0 §5.1: "Invalid method parameter(s)". */
export const INVALID_PARAMS = -32602;
