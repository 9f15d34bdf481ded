import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { paramOf, paramsOf } from '../http/requests/params.ts';
import type { Deps } from '../deps.ts';
import { MCP_BODY_LIMIT_BYTES } from '../http/requests/body-limits.ts';
import { rateLimitFor } from '../http/requests/rate-limit.ts';
import type { Scope } from '../access/scopes.ts';
import type { RecordService } from '../platform/records.ts';
import { authorizeRequest, bearerTokenHash } from '../resource/guard.ts';
import { rejectForeignOriginOrHost } from './dns-rebinding.ts';
import { INTERNAL_ERROR, INVALID_REQUEST, PARSE_ERROR } from './json-rpc-error.ts';
import { MCP_PATH } from './path.ts';
import compress from '@fastify/compress';
import { classifyInboundRequest, createMcpHandler, WebStandardStreamableHTTPServerTransport, type McpHttpHandler, type McpRequestContext } from '@modelcontextprotocol/server';
import type { McpDocuments } from './resources.ts';
import { buildMcpServer } from './server.ts';
import { toolAccess } from './tool-list.ts';
import type { ToolAccess, ToolContext } from './tool.ts';
import { parseToolsetChoice, READONLY_HEADER, TOOLSETS_HEADER } from './toolsets.ts';
import { toolByName } from './tools/index.ts';

/** What one request is served with: the caller's context, the access its list is shaped by, and its method. */
interface Served {
  ctx: ToolContext;
  access: ToolAccess;
  method: unknown;
}

/** The SDK hands the factory the authInfo the route passed in; `served` rides in its extra. */
const servedOf = (rc: McpRequestContext): Served => rc.authInfo?.extra?.served as Served;

/**
 * The request as the SDK reads it: method, URL and headers (the 2026-07-28
 * revision checks Mcp-Method and Mcp-Name against the body). The body is
 * handed over already parsed (parsedBody), so it is not written out again.
 */
function toWebRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || name === 'content-length' || name === 'transfer-encoding') continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return new Request(`http://${request.host}${request.url}`, { method: 'POST', headers });
}

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
  const hash = bearerTokenHash(request.headers.authorization ?? '');
  return hash === undefined ? `mcp-ip:${request.ip}` : `mcp-token:${hash}`;
}

/** The id of a JSON-RPC request, to answer its error with; null when it has none a response may carry (JSON-RPC 2.0 §4: "String, Number, or NULL"). */
function requestId(body: unknown): string | number | null {
  const id = (body as { id?: unknown } | null | undefined)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/** Fastify sends an object payload as application/json; charset=utf-8. */
function jsonRpcError(reply: FastifyReply, status: number, code: number, message: string, id: unknown = null, data?: unknown) {
  return reply.code(status).send({ jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } });
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
export function registerMcpRoutes(app: FastifyInstance, deps: Deps, records: RecordService, documents: McpDocuments, version = '1'): void {
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

    // Answers are compressed for clients that accept it: a tool list or a page of records
    // shrinks to a tenth, and every MCP client sends Accept-Encoding.
    await scope.register(compress, { global: true, encodings: ['gzip', 'deflate'], threshold: 1024 });

    const rateLimit = rateLimitFor(deps.config, 'mcp', { keyGenerator: mcpClientKey });
    let modern: McpHttpHandler | undefined;
    scope.post(MCP_PATH, { bodyLimit: MCP_BODY_LIMIT_BYTES, schema: { hide: true }, config: { rateLimit } }, async (request: FastifyRequest, reply: FastifyReply) => {
      if (request.body === NOT_JSON) return jsonRpcError(reply, 400, PARSE_ERROR, 'Parse error: the body is not valid JSON');
      // MCP 2025-06-18 removed JSON-RPC batching, and one message per request is what the rate
      // limit counts: a batch of a hundred tools/list would cost a hundred lists for one request.
      if (Array.isArray(request.body)) return jsonRpcError(reply, 400, INVALID_REQUEST, 'Invalid Request: JSON-RPC batches are not accepted; send one message per request');
      const choice = parseToolsetChoice(request.headers[TOOLSETS_HEADER.toLowerCase()], request.headers[READONLY_HEADER.toLowerCase()]);
      if (!choice.ok) return jsonRpcError(reply, 400, INVALID_REQUEST, `Invalid Request: ${choice.message}`);
      // What the SDK would refuse whatever the token (a missing _meta, an unknown revision,
      // Mcp-Method or Mcp-Name headers that disagree with the body) is refused first: a
      // malformed request is a 400 and never looks like a need to sign in.
      const header = (name: string) => {
        const value = request.headers[name];
        return typeof value === 'string' ? value : undefined;
      };
      const route = classifyInboundRequest({
        httpMethod: 'POST',
        protocolVersionHeader: header('mcp-protocol-version'),
        mcpMethodHeader: header('mcp-method'),
        mcpNameHeader: header('mcp-name'),
        body: request.body,
      });
      if (route.kind === 'reject') return jsonRpcError(reply, route.httpStatus, route.code, route.message, requestId(request.body), route.data);
      const required = scopesNeeded(request.body);
      const caller = await authorizeRequest(
        {
          authorization: request.headers.authorization,
          tokenInQuery: 'access_token' in paramsOf(request.query),
          required,
          resource: 'mcp',
          allowAnonymous: required.length === 0,
        },
        { store: deps.store, issuer: deps.config.issuer, now: deps.now() },
      );
      const webRequest = toWebRequest(request);
      let response: Response;
      const served: Served = {
        ctx: { deps, records, caller, log: request.log },
        access: toolAccess(caller, choice.toolsets, choice.readOnly),
        method: paramOf(request.body, 'method'),
      };
      const build = (s: Served) => buildMcpServer(s.ctx, s.access, version, documents, s.method);
      try {
        if (route.kind === 'legacy') {
          // A 2025 revision: a server and transport for this request alone, answering in JSON
          // (the SDK's own stateless fallback answers with an event stream).
          const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
          await build(served).connect(transport);
          response = await transport.handleRequest(webRequest, { parsedBody: request.body });
        } else {
          modern ??= createMcpHandler((rc) => build(servedOf(rc)), { legacy: 'reject', responseMode: 'json', maxRequestBodySize: MCP_BODY_LIMIT_BYTES });
          response = await modern.fetch(webRequest, { parsedBody: request.body, authInfo: { token: '', clientId: '', scopes: [], extra: { served } } });
        }
        reply.code(response.status);
        response.headers.forEach((value, name) => {
          if (name !== 'content-length') void reply.header(name, value);
        });
        return reply.send(await response.text());
      } catch (err) {
        // The SDK answers its own failures; what lands here failed before it answered.
        request.log.error({ err }, 'MCP request failed');
        return jsonRpcError(reply, 500, INTERNAL_ERROR, 'Internal error');
      }
    });

    // Stateless: no server-to-client stream and no session to end (Streamable HTTP §GET/§DELETE allow 405).
    const notAllowed = async (_request: FastifyRequest, reply: FastifyReply) =>
      reply
        .code(405)
        .header('allow', 'POST')
        .send({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Method not allowed: this MCP server is stateless; use POST' } });
    scope.get(MCP_PATH, { schema: { hide: true } }, notAllowed);
    scope.delete(MCP_PATH, { schema: { hide: true } }, notAllowed);
  });
}
