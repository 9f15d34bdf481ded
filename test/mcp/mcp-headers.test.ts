import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { obtainTokens, startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { MCP_ACCEPT, mcpPost, rpc, toolCall, type McpResponse } from '../helpers/mcp.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

/**
 * The security headers every response carries, written out by hand (the test
 * server runs on http, so no Strict-Transport-Security).
 */
const SECURITY: Record<string, string> = {
  'content-security-policy': "default-src 'none';style-src 'self';img-src 'self' data:;frame-ancestors 'none';base-uri 'none'",
  'cross-origin-opener-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'DENY',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
};

/** The headers every /mcp answer must carry, whoever writes it (the transport or Fastify). */
function expectMcpHeaders(res: Pick<McpResponse, 'headers'>, label: string): void {
  for (const [name, value] of Object.entries(SECURITY)) expect(res.headers.get(name), `${label}: ${name}`).toBe(value);
  expect(res.headers.get('strict-transport-security'), `${label}: never over http`).toBeNull();
  expect(res.headers.get('x-content-type-options'), label).toBe('nosniff');
  expect(res.headers.get('cache-control'), label).toBe('no-store');
  expect(res.headers.get('access-control-allow-origin'), label).toBe('*');
  expect(res.headers.get('access-control-expose-headers'), label).toBe('WWW-Authenticate');
  // Stateless: no session, so no Mcp-Session-Id to expose.
  expect(res.headers.get('mcp-session-id'), label).toBeNull();
}

describe.each(STORE_KINDS)('MCP response headers (%s)', (kind) => {
  let server: FlowServer;
  let bearer: string;
  beforeAll(async () => {
    server = await startFlowServer(kind);
    bearer = `Bearer ${(await obtainTokens(server, { scope: 'students:read' })).tokens.access_token}`;
  });
  afterAll(() => server?.stop());

  it('an anonymous POST answered by the transport carries the security, cache and CORS headers', async () => {
    const res = await mcpPost(server.issuer, rpc('tools/list'), { headers: { origin: server.issuer } });
    expect(res.status).toBe(200);
    expect((res.json as { result: { tools: unknown[] } }).result.tools.length).toBeGreaterThan(0);
    expectMcpHeaders(res, 'anonymous tools/list');
  });

  it('a POST a token unlocked carries them too, no-store first of all', async () => {
    const res = await mcpPost(server.issuer, toolCall('list_records', { area: 'students' }), { authorization: bearer });
    expect(res.status).toBe(200);
    expect((res.json as { result: { isError?: boolean } }).result.isError ?? false).toBe(false);
    expectMcpHeaders(res, 'list_students with a token');
  });

  it('a 401 from /mcp carries them with its challenge', async () => {
    const res = await mcpPost(server.issuer, toolCall('list_records', { area: 'students' }), { authorization: 'Bearer not-a-known-token' });
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ error: 'invalid_token', error_description: 'The access token is not recognised' });
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
    expectMcpHeaders(res, '401');
  });

  it('a JSON-RPC parse error and the 405 of GET and DELETE carry them', async () => {
    const parse = await mcpPost(server.issuer, undefined, { raw: '{"jsonrpc":' });
    expect(parse.status).toBe(400);
    expect(parse.json).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the body is not valid JSON' } });
    expectMcpHeaders(parse, 'parse error');
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${server.issuer}/mcp`, { method, headers: { accept: MCP_ACCEPT } });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow'), method).toBe('POST');
      expectMcpHeaders(res, method);
      await res.body?.cancel();
    }
  });
});
