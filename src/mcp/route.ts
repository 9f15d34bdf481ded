import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.ts';
import { MCP_BODY_LIMIT_BYTES } from '../http/body-limits.ts';
import { hijackWithHeaders } from '../http/hijack.ts';
import { rateLimitFor } from '../http/rate-limit.ts';
import type { Scope } from '../access/scopes.ts';
import type { RecordService } from '../platform/records.ts';
import { authorizeRequest, bearerTokenHash } from '../resource/guard.ts';
import { rejectForeignOriginOrHost } from './dns-rebinding.ts';
import { MCP_PATH } from './path.ts';
import { loadMcpSdk } from './sdk.ts';
import type { McpDocuments } from './resources.ts';
import { buildMcpServer } from './server.ts';
import { toolByName } from './tools/index.ts';

const NOT_JSON = Symbol('not-json');

/**
 * Rate-limit key per MCP client: its access token's identity, the hash the
 * store keeps it under (never the token in clear, in Redis either), read by
 * the guard's own parser so that "bearer", "BEARER" or extra spaces around one
 * token share its budget. Anonymous callers, and headers that are not a bearer
 * token (the guard refuses those), count against their address.
 */
function mcpClientKey(request: FastifyRequest): string {
  // No header reads as an empty one: neither is a bearer token.
  // Stryker disable next-line StringLiteral: any fallback that is not a bearer token gives the address key alike, and a client that sends no header cannot choose it.
  const hash = bearerTokenHash(request.headers.authorization ?? '');
  return hash === undefined ? `mcp-ip:${request.ip}` : `mcp-token:${hash}`;
}

/** Fastify sends an object payload as application/json; charset=utf-8. */
function jsonRpcError(reply: FastifyReply, status: number, code: number, message: string) {
  return reply.code(status).send({ jsonrpc: '2.0', id: null, error: { code, message } });
}

/** The scopes a JSON-RPC message needs: those of the gated tool it calls, and of its arguments. */
function scopesNeeded(body: unknown): Scope[] {
  // A number or a string has no method either; only null and undefined need the `?.`.
  const msg = body as { method?: unknown; params?: { name?: unknown; arguments?: unknown } } | null | undefined;
  if (msg?.method !== 'tools/call') return [];
  const tool = toolByName(msg.params?.name);
  return [...new Set([...(tool?.scopes ?? []), ...(tool?.argumentScopes?.(msg.params?.arguments) ?? [])])];
}

/**
 * /mcp — MCP Streamable HTTP, stateless: every POST gets a fresh server and
 * transport, so any instance can answer any request. The bearer guard runs
 * first with resource = {issuer}/mcp: tools that need a scope produce HTTP
 * 401/403 with the MCP resource's metadata, which clients act on.
 */
export function registerMcpRoutes(app: FastifyInstance, deps: Deps, records: RecordService, documents: McpDocuments): void {
  void app.register(async (scope) => {
    // Malformed JSON must get a JSON-RPC parse error, not the API's OAuth error body.
    scope.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: MCP_BODY_LIMIT_BYTES }, (_req, body, done) => {
      try {
        done(null, JSON.parse(body as string));
      } catch {
        done(null, NOT_JSON);
      }
    });

    // JSON-RPC answers are never cached, anonymous ones included: a tools/list
    // or tool result belongs to one caller and one moment (RFC 9111 §5.2.2.5
    // "a cache MUST NOT store any part of either the immediate request or the
    // response").
    scope.addHook('onRequest', (_request, reply, done) => {
      reply.header('cache-control', 'no-store');
      done();
    });
    scope.addHook('onRequest', rejectForeignOriginOrHost(deps.config));

    const rateLimit = rateLimitFor(deps.config, 'mcp', { keyGenerator: mcpClientKey });
    scope.post(MCP_PATH, { bodyLimit: MCP_BODY_LIMIT_BYTES, schema: { hide: true }, config: { rateLimit } }, async (request: FastifyRequest, reply: FastifyReply) => {
      if (request.body === NOT_JSON) return jsonRpcError(reply, 400, -32700, 'Parse error: the body is not valid JSON');
      // MCP 2025-06-18 removed JSON-RPC batching, and one message per request is what the rate
      // limit counts: a batch of a hundred tools/list would cost a hundred lists for one request.
      if (Array.isArray(request.body)) return jsonRpcError(reply, 400, -32600, 'Invalid Request: JSON-RPC batches are not accepted; send one message per request');
      const required = scopesNeeded(request.body);
      const caller = await authorizeRequest(
        {
          authorization: request.headers.authorization,
          // Fastify always parses the query string into an object.
          tokenInQuery: 'access_token' in (request.query as object),
          required,
          resource: 'mcp',
          allowAnonymous: required.length === 0,
        },
        { store: deps.store, issuer: deps.config.issuer, now: deps.now() },
      );
      const { StreamableHTTPServerTransport } = await loadMcpSdk();
      const server = await buildMcpServer({ deps, records, caller, log: request.log }, '1', documents);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      const raw = hijackWithHeaders(reply);
      raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      try {
        await server.connect(transport);
        await transport.handleRequest(request.raw, raw, request.body);
      } catch (err) {
        request.log.error({ err }, 'MCP request failed');
        // Stryker disable next-line ConditionalExpression: the SDK's Node adapter answers its own failures and never throws once it has written, so what lands here failed before any byte was sent.
        if (!raw.headersSent) {
          raw.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: 'Internal error' } }));
        }
      }
    });

    // Stateless: no server-to-client stream and no session to end (Streamable HTTP §GET/§DELETE allow 405).
    const notAllowed = async (_request: FastifyRequest, reply: FastifyReply) =>
      reply.code(405).header('allow', 'POST').send({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Method not allowed: this MCP server is stateless; use POST' } });
    scope.get(MCP_PATH, { schema: { hide: true } }, notAllowed);
    scope.delete(MCP_PATH, { schema: { hide: true } }, notAllowed);
  });
}
