/**
 * The IETF draft "RateLimit header fields for HTTP" on every answer of a
 * rate-limited route, over real HTTP: `RateLimit-Policy` names the policy
 * with its quota and window, `RateLimit` what is left and when the window
 * ends, a 429 adds `Retry-After` equal to `t`, and the plugin's own
 * x-ratelimit-* headers are gone. The fields are parsed here by hand as
 * structured-field Lists (RFC 9651 §3.1) of Strings with Integer parameters.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { register } from '../helpers/oauth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

interface Item {
  name: string;
  params: Record<string, number>;
}

/** A List of String items with Integer parameters: `"name";q=10;w=60, "other";q=1`. */
function parseList(field: string | null): Item[] {
  if (field === null) throw new Error('the field is missing');
  return field.split(',').map((member) => {
    const m = /^\s*"([\x20-\x21\x23-\x5b\x5d-\x7e]*)"((?:;[a-z*][a-z0-9_.*-]*=-?\d{1,15})*)\s*$/.exec(member);
    if (!m) throw new Error(`not a String item with Integer parameters: ${JSON.stringify(member)}`);
    const params: Record<string, number> = {};
    for (const p of m[2]!.split(';').slice(1)) {
      const [key, value] = p.split('=') as [string, string];
      if (key in params) throw new Error(`parameter ${key} twice`);
      params[key] = Number(value);
    }
    return { name: m[1]!, params };
  });
}

const CLIENT = { client_name: 'Fields probe', redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none' };
const LIMIT = 3;

function registerRaw(issuer: string): Promise<Response> {
  return fetch(`${issuer}/api/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(CLIENT) });
}

function mcpPing(issuer: string): Promise<Response> {
  return fetch(`${issuer}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
}

describe('RateLimit-Policy and RateLimit fields', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite', { RATE_LIMIT_REGISTER_PER_MINUTE: String(LIMIT), RATE_LIMIT_MCP_PER_MINUTE: '2' });
  });
  afterAll(async () => {
    await server.close();
  });

  it('every answer of a limited route names its policy with quota and window, r counts down, and the 429 has Retry-After equal to t', async () => {
    const remaining: number[] = [];
    for (let i = 0; i < LIMIT; i++) {
      const res = await registerRaw(server.issuer);
      await res.arrayBuffer();
      expect(res.status).toBe(201);
      expect(parseList(res.headers.get('ratelimit-policy'))).toEqual([{ name: 'register', params: { q: LIMIT, w: 60 } }]);
      const [now] = parseList(res.headers.get('ratelimit'));
      expect(now!.name).toBe('register');
      expect(Object.keys(now!.params).sort()).toEqual(['r', 't']);
      expect(now!.params.t).toBeGreaterThanOrEqual(1);
      expect(now!.params.t).toBeLessThanOrEqual(60);
      remaining.push(now!.params.r!);
      for (const old of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) expect(res.headers.get(old), old).toBeNull();
    }
    expect(remaining).toEqual([2, 1, 0]);

    const over = await registerRaw(server.issuer);
    expect(over.status).toBe(429);
    expect(await over.json()).toEqual({ error: 'too_many_requests', error_description: 'Too many requests; slow down and retry later.' });
    expect(parseList(over.headers.get('ratelimit-policy'))).toEqual([{ name: 'register', params: { q: LIMIT, w: 60 } }]);
    const [after] = parseList(over.headers.get('ratelimit'));
    expect(after).toEqual({ name: 'register', params: { r: 0, t: expect.any(Number) } });
    expect(over.headers.get('retry-after')).toBe(String(after!.params.t));
  });

  it('an answer the MCP transport writes itself carries the fields too, and so does its 429', async () => {
    const first = await mcpPing(server.issuer);
    await first.arrayBuffer();
    expect(first.status).toBe(200);
    expect(parseList(first.headers.get('ratelimit-policy'))).toEqual([{ name: 'mcp', params: { q: 2, w: 60 } }]);
    expect(parseList(first.headers.get('ratelimit'))[0]).toEqual({ name: 'mcp', params: { r: 1, t: expect.any(Number) } });
    expect(first.headers.get('x-ratelimit-limit')).toBeNull();
    await (await mcpPing(server.issuer)).arrayBuffer();
    const over = await mcpPing(server.issuer);
    await over.arrayBuffer();
    expect(over.status).toBe(429);
    const [after] = parseList(over.headers.get('ratelimit'));
    expect(after).toEqual({ name: 'mcp', params: { r: 0, t: expect.any(Number) } });
    expect(over.headers.get('retry-after')).toBe(String(after!.params.t));
  });

  it('a route without a limit carries neither field', async () => {
    const res = await fetch(`${server.issuer}/.well-known/oauth-authorization-server`);
    await res.arrayBuffer();
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-policy')).toBeNull();
    expect(res.headers.get('ratelimit')).toBeNull();
  });

  it('/openapi.json documents both fields on every answer of a limited operation, Retry-After on its 429, and neither elsewhere', async () => {
    type Answer = { headers?: Record<string, unknown> };
    const doc = (await (await fetch(`${server.issuer}/openapi.json`)).json()) as { paths: Record<string, Record<string, { responses: Record<string, Answer> }>> };
    const register = doc.paths['/api/oauth/register']!.post!.responses;
    expect(Object.keys(register)).toContain('429');
    for (const [status, answer] of Object.entries(register)) {
      const names = Object.keys(answer.headers ?? {});
      expect(names, status).toEqual(expect.arrayContaining(['RateLimit', 'RateLimit-Policy']));
      expect(names.includes('Retry-After'), status).toBe(status === '429');
    }
    for (const answer of Object.values(doc.paths['/api/v1/courses']!.get!.responses)) expect(answer.headers?.RateLimit).toBeUndefined();
  });

  it('a limit set to 0 is no policy: no fields', async () => {
    const open = await startTestServer('sqlite');
    try {
      const res = await register(open.issuer, CLIENT);
      expect(res.status).toBe(201);
      const raw = await registerRaw(open.issuer);
      await raw.arrayBuffer();
      expect(raw.headers.get('ratelimit-policy')).toBeNull();
      expect(raw.headers.get('ratelimit')).toBeNull();
    } finally {
      await open.close();
    }
  });
});
