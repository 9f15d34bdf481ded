import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { obtainTokens, startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { mcpPost, resultOf, rpc, toolCall } from '../helpers/mcp.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

/**
 * auth.md's "An MCP agent, from first contact to a tool call" is a promise
 * about what /mcp answers at each step: each claim it makes is checked here
 * against the live endpoint.
 */
describe("auth.md: an MCP agent's path, checked against /mcp", () => {
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

  it('step 1: its curl lists the catalog and sign_in to a caller without a token', async () => {
    expect(section).toContain(
      `curl -s ${server.issuer}/mcp -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' -d '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}'`,
    );
    const res = await mcpPost(server.issuer, rpc('tools/list', {}));
    expect(res.status).toBe(200);
    const names = (resultOf(res).tools as { name: string }[]).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['sign_in', 'list_records', 'get_course']));
    expect(names).not.toContain('get_my_account');
  });

  it('step 2: shows the toolset headers, as the server reads them', async () => {
    expect(section).toContain('claude mcp add --transport http lyceum');
    expect(section).toContain('"X-MCP-Toolsets": "courses,students"');
    const res = await mcpPost(server.issuer, rpc('tools/list', {}), { headers: { 'X-MCP-Toolsets': 'nothing' } });
    expect(res.status).toBe(400);
  });

  it('step 3: get_course_progress without a token is 401 invalid_request and no WWW-Authenticate, as it says', async () => {
    expect(section).toContain('Calling `get_course_progress` (scope `students:read`) without a token answers HTTP 401 `invalid_request`');
    const res = await mcpPost(server.issuer, toolCall('get_course_progress', { course_id: 'crs_x' }));
    expect(res.status).toBe(401);
    expect((res.json as { error: string }).error).toBe('invalid_request');
    expect(res.headers.get('www-authenticate')).toBeNull();
  });

  it("step 4: a student's token is said to get account:read and account:write", () => {
    expect(section).toContain("A student's token gets `account:read` and `account:write`");
  });

  it('step 7: the 403 challenge it shows is the one /mcp sends to a token without students:read', async () => {
    const { tokens } = await obtainTokens(server, { scope: 'courses:read', resource: `${server.issuer}/mcp` });
    const res = await mcpPost(server.issuer, toolCall('get_course_progress', { course_id: 'crs_x' }), { authorization: `Bearer ${tokens.access_token}` });
    expect(res.status).toBe(403);
    expect(section).toContain(`HTTP/1.1 403 Forbidden\nWWW-Authenticate: ${res.headers.get('www-authenticate')}\n`);
  });
});
