import { MCP_PATH } from '../mcp/path.ts';

/** The machine-readable documents every origin serves (auth.md, "Endpoints"). */
export const DOCUMENT_PATHS = {
  auth: '/auth.md',
  llms: '/llms.txt',
  pricing: '/pricing.md',
  openapi: '/openapi.json',
  mcp: MCP_PATH,
} as const;

/** RFC 8414 §3 and OpenID Connect Discovery §4: where the metadata documents are served. */
export const METADATA_PATHS = {
  authorizationServer: '/.well-known/oauth-authorization-server',
  openidConfiguration: '/.well-known/openid-configuration',
} as const;
