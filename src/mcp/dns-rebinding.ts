import { isIPv4 } from 'node:net';
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { Config } from '../config/index.ts';

/** Whether HOST binds only the loopback interface: then no other machine reaches the server, only the browser's pages. */
export function boundToLoopback(host: string): boolean {
  const h = host.toLowerCase();
  return h === 'localhost' || h === '::1' || h === '[::1]' || (isIPv4(h) && h.startsWith('127.'));
}

/** The answer the MCP SDK's own DNS-rebinding check gives: 403 with a JSON-RPC error, which MCP clients read. */
function refuse(reply: FastifyReply, message: string): FastifyReply {
  return reply
    .code(403)
    .type('application/json; charset=utf-8')
    .send({ jsonrpc: '2.0', id: null, error: { code: -32000, message } });
}

/**
 * DNS-rebinding protection for /mcp. MCP Streamable HTTP transport, security
 * warning: "Servers MUST validate the Origin header on all incoming
 * connections to prevent DNS rebinding attacks" and "When running locally,
 * servers SHOULD bind only to localhost".
 * - Origin, when sent, must be the issuer's origin or one of
 *   MCP_ALLOWED_ORIGINS. Requests without Origin come from no browser page
 *   (CLI tools, IDE agents) and are served.
 * - When HOST is a loopback address, the Host header must also be the
 *   issuer's host: a rebound name (evil.example resolving to 127.0.0.1)
 *   arrives with its own Host even where the browser sends no Origin.
 *   Fastify's request.host honours TRUST_PROXY (X-Forwarded-Host), like the
 *   rest of the app.
 * It runs among the routes' onRequest hooks: before the rate limit, the
 * body, the bearer guard and any tool.
 *
 * The SDK's transport options (allowedHosts, allowedOrigins) are deprecated
 * in favour of middleware, and its middleware is Express's and checks only
 * the Host; this hook gives their answer, in the same shape, to Fastify.
 */
export function rejectForeignOriginOrHost(config: Pick<Config, 'issuer' | 'host' | 'mcpAllowedOrigins'>): onRequestAsyncHookHandler {
  const issuer = new URL(config.issuer);
  const origins = new Set([issuer.origin, ...config.mcpAllowedOrigins]);
  const host = boundToLoopback(config.host) ? issuer.host : undefined;
  return async function checkOriginAndHost(request: FastifyRequest, reply: FastifyReply) {
    const origin = request.headers.origin;
    if (origin !== undefined && !origins.has(origin.toLowerCase())) {
      return refuse(reply, `Invalid Origin header: ${origin}. Only pages of ${issuer.origin} (and the origins in MCP_ALLOWED_ORIGINS) may call this MCP server from a browser.`);
    }
    // A request without Host (HTTP/1.0) cannot show it was meant for this server either.
    const sent = request.host ?? '';
    if (host !== undefined && sent.toLowerCase() !== host) {
      return refuse(reply, `Invalid Host header: ${sent}. This MCP server answers only at ${issuer.host}.`);
    }
  };
}
