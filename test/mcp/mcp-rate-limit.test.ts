import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { obtainTokens, startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const LIMIT = 3;

const listTools = (issuer: string, authorization?: string) =>
  fetch(`${issuer}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(authorization ? { authorization } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });

describe.each(STORE_KINDS)('MCP rate limit per client (%s)', (kind) => {
  let server: FlowServer;
  beforeAll(async () => {
    server = await startFlowServer(kind, { RATE_LIMIT_MCP_PER_MINUTE: String(LIMIT) });
  });
  afterAll(() => server.stop());

  it('answers 429 too_many_requests past the limit, counting each access token apart from anonymous callers', async () => {
    for (let i = 0; i < LIMIT; i++) expect((await listTools(server.issuer)).status).toBe(200);
    const over = await listTools(server.issuer);
    expect(over.status).toBe(429);
    expect(await over.json()).toMatchObject({ error: 'too_many_requests' });

    // A signed-in client has a budget of its own.
    const { tokens } = await obtainTokens(server, { scope: 'students:read' });
    const bearer = `Bearer ${tokens.access_token}`;
    for (let i = 0; i < LIMIT; i++) expect((await listTools(server.issuer, bearer)).status).toBe(200);
    expect((await listTools(server.issuer, bearer)).status).toBe(429);
  });
});
