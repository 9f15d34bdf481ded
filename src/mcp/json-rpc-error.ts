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
/** JSON-RPC 2.0 §5.1: "Internal JSON-RPC error". */
export const INTERNAL_ERROR = -32603;
/** MCP resources, "Error Handling": "Resource not found: -32002". */
export const RESOURCE_NOT_FOUND = -32002;
