import { RESOURCE_PATHS } from '../oauth/resources.ts';

/** The MCP server's endpoint (Streamable HTTP), on the issuer: the MCP resource's path. */
export const MCP_PATH = RESOURCE_PATHS.mcp;
