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

  it('counts one token in one bucket however its Authorization header is written, and each token apart', async () => {
    const first = (await obtainTokens(server, { scope: 'students:read' })).tokens.access_token;
    const second = (await obtainTokens(server, { scope: 'students:read' })).tokens.access_token;
    // The scheme is case-insensitive and the spaces around the token do not count (RFC 6750 §2.1, RFC 7235 §2.1).
    const spellings = { 'Bearer <token>': `Bearer ${first}`, 'bearer <token>': `bearer ${first}`, 'BEARER    <token>': `BEARER    ${first}` };
    for (const [label, authorization] of Object.entries(spellings)) expect((await listTools(server.issuer, authorization)).status, label).toBe(200);
    for (const [label, authorization] of Object.entries(spellings)) {
      const over = await listTools(server.issuer, authorization);
      expect(over.status, label).toBe(429);
      expect(await over.json()).toEqual({ error: 'too_many_requests', error_description: 'Too many requests; slow down and retry later.' });
    }

    // Another token keeps a budget of its own.
    for (let i = 0; i < LIMIT; i++) expect((await listTools(server.issuer, `bearer ${second}`)).status).toBe(200);
    expect((await listTools(server.issuer, `Bearer ${second}`)).status).toBe(429);
  });
});
