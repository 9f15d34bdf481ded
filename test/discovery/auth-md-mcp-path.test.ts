import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { obtainTokens, startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { mcpPost, resultOf, rpc, toolCall } from '../helpers/mcp.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

/**
 * auth.md's "An MCP agent, from first contact to a tool call" is a promise
 * about what /mcp answers at each step: each claim it makes is checked here
 * against the live endpoint.
 */
describe('auth.md: an MCP agent\'s path, checked against /mcp', () => {
  let server: FlowServer;
  let section: string;

  beforeAll(async () => {
    server = await startFlowServer(STORE_KINDS[0]!);
    const doc = await (await fetch(`${server.issuer}/auth.md`)).text();
    const start = doc.indexOf('## An MCP agent, from first contact to a tool call');
    expect(start).toBeGreaterThan(0);
    section = doc.slice(start, doc.indexOf('\n## ', start + 3));
  });
  afterAll(() => server?.close());

  it('names the MCP endpoint, its protected-resource metadata and the endpoints to sign in with', () => {
    for (const url of ['/mcp', '/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-authorization-server', '/api/oauth/register', '/oauth/authorize', '/api/oauth/token']) {
      expect(section).toContain(`\`${server.issuer}${url}\``);
    }
    expect(section).toContain(`resource=${server.issuer}/mcp`);
  });

  it('step 1: its curl lists every tool to a caller without a token', async () => {
    expect(section).toContain(`curl -s ${server.issuer}/mcp -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' -d '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}'`);
    const res = await mcpPost(server.issuer, rpc('tools/list', {}));
    expect(res.status).toBe(200);
    const names = (resultOf(res).tools as { name: string }[]).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['list_students', 'get_my_account']));
  });

  it('step 2: list_students without a token is 401 invalid_request and no WWW-Authenticate, as it says', async () => {
    expect(section).toContain('Calling `list_students` (scope `students:read`) without a token answers HTTP 401 `invalid_request`');
    const res = await mcpPost(server.issuer, toolCall('list_students'));
    expect(res.status).toBe(401);
    expect((res.json as { error: string }).error).toBe('invalid_request');
    expect(res.headers.get('www-authenticate')).toBeNull();
  });

  it('step 4: a student\'s token is said to get account:read and account:write', () => {
    expect(section).toContain('A student\'s token gets `account:read` and `account:write`');
  });

  it('step 6: the 403 challenge it shows is the one /mcp sends to a token without students:read', async () => {
    const { tokens } = await obtainTokens(server, { scope: 'courses:read', resource: `${server.issuer}/mcp` });
    const res = await mcpPost(server.issuer, toolCall('list_students'), { authorization: `Bearer ${tokens.access_token}` });
    expect(res.status).toBe(403);
    expect(section).toContain(`HTTP/1.1 403 Forbidden\nWWW-Authenticate: ${res.headers.get('www-authenticate')}\n`);
  });
});
