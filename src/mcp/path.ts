/** The MCP server's endpoint (Streamable HTTP), on the issuer. */
export const MCP_PATH = '/mcp';
