/**
 * The largest request bodies Lyceum reads, in bytes. Each is declared here
 * once; the routes, the error pages and /auth.md's limits table read them.
 */

/** Form and JSON bodies of every route that does not say otherwise. */
export const BODY_LIMIT_BYTES = 64 * 1024;

/** A JSON-RPC message to /mcp: a tool call may carry a long lesson or post body. */
export const MCP_BODY_LIMIT_BYTES = 1024 * 1024;
