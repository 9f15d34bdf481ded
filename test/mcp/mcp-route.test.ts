/**
 * The /mcp routes on a server started inside the test, because their options
 * (rate limit, body limit, hidden from /openapi.json) and the 405 handler are
 * bound while it is built: what a client sees, written by hand.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { readJson } from '../helpers/bearer.ts';
import { obtainTokens, startFlowServer } from '../helpers/flow.ts';
import { mcpPost, rpc } from '../helpers/mcp.ts';
import { startTestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const NOT_ALLOWED = { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Method not allowed: this MCP server is stateless; use POST' } };
const TOO_MANY = { error: 'too_many_requests', error_description: 'Too many requests; slow down and retry later.' };

/** An anonymous tools/list from this client address (the server trusts X-Forwarded-For). */
const listFrom = (issuer: string, address: string, authorization?: string) =>
  mcpPost(issuer, rpc('tools/list'), { headers: { 'x-forwarded-for': address }, ...(authorization ? { authorization } : {}) });

describe('/mcp routes', () => {
  afterEach(() => vi.restoreAllMocks());

  it('answer GET and DELETE with 405, stay out of /openapi.json, and rate-limit each client apart', async () => {
    const server = await startFlowServer(STORE_KINDS[0]!, { RATE_LIMIT_MCP_PER_MINUTE: '2', TRUST_PROXY: 'true' });
    try {
      for (const method of ['GET', 'DELETE']) {
        const res = await readJson(await fetch(`${server.issuer}/mcp`, { method, headers: { accept: 'application/json, text/event-stream' } }));
        expect({ status: res.status, allow: res.headers.get('allow'), type: res.headers.get('content-type'), body: res.json }, method).toEqual({
          status: 405,
          allow: 'POST',
          type: 'application/json; charset=utf-8',
          body: NOT_ALLOWED,
        });
      }
      const doc = await readJson(await fetch(`${server.issuer}/openapi.json`));
      expect(doc.status).toBe(200);
      expect(Object.keys(doc.json.paths as object).filter((p) => p.startsWith('/mcp'))).toEqual([]);

      // Not JSON: a JSON-RPC parse error, in full.
      const notJson = await mcpPost(server.issuer, null, { raw: '{bad', headers: { 'x-forwarded-for': '10.0.0.1' } });
      expect({ status: notJson.status, body: notJson.json }).toEqual({ status: 400, body: { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the body is not valid JSON' } } });
      // JSON that is no message at all reaches the SDK, which refuses it; nothing needs a scope.
      const nothing = await mcpPost(server.issuer, null, { raw: 'null', headers: { 'x-forwarded-for': '10.0.0.2' } });
      expect({ status: nothing.status, body: nothing.json }).toEqual({
        status: 400,
        body: { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Bad Request: the request body is not a valid JSON-RPC message' } },
      });
      // Only tools/call names a tool: a prompt of the same name needs no scope (and does not exist).
      const prompt = await mcpPost(server.issuer, rpc('prompts/get', { name: 'get_my_account' }), { headers: { 'x-forwarded-for': '10.0.0.3' } });
      expect(prompt.status, prompt.text).toBe(200);
      expect(prompt.json).toMatchObject({ error: { code: -32602, message: 'Prompt get_my_account not found' } });

      // Anonymous callers count against their address, each address apart.
      expect((await listFrom(server.issuer, '10.0.0.4')).status).toBe(200);
      expect((await listFrom(server.issuer, '10.0.0.4')).status).toBe(200);
      const over = await listFrom(server.issuer, '10.0.0.4');
      expect({ status: over.status, body: over.json }).toEqual({ status: 429, body: TOO_MANY });
      expect((await listFrom(server.issuer, '10.0.0.5')).status).toBe(200);
      // A token has a budget of its own, from an address whose budget is spent.
      const { tokens } = await obtainTokens(server, { scope: 'students:read' });
      expect((await listFrom(server.issuer, '10.0.0.4', `Bearer ${tokens.access_token}`)).status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  it('answers a JSON-RPC internal error when the transport fails', async () => {
    vi.spyOn(WebStandardStreamableHTTPServerTransport.prototype, 'handleRequest').mockRejectedValueOnce(new Error('transport broke'));
    const server = await startTestServer(STORE_KINDS[0]!);
    try {
      const res = await mcpPost(server.issuer, rpc('tools/list'));
      expect({ status: res.status, type: res.headers.get('content-type'), body: res.json }).toEqual({
        status: 500,
        type: 'application/json; charset=utf-8',
        body: { jsonrpc: '2.0', id: null, error: { code: -32603, message: 'Internal error' } },
      });
    } finally {
      await server.close();
    }
  });

  it('answers a tool whose store fails with a plain failure, never the cause', async () => {
    const server = await startTestServer(STORE_KINDS[0]!);
    try {
      // An anonymous catalog call passes the guard without the store; the tool then meets a closed database.
      await server.deps.store.close();
      const res = await mcpPost(server.issuer, rpc('tools/call', { name: 'list_records', arguments: { area: 'courses' } }));
      expect({ status: res.status, result: (res.json as { result?: unknown }).result }).toEqual({
        status: 200,
        result: { content: [{ type: 'text', text: 'The tool failed; try again later.' }], isError: true },
      });
    } finally {
      await server.app.close();
    }
  });
});
