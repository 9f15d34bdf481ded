import { createHash } from 'node:crypto';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseChallenge } from '../helpers/bearer.ts';
import { startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { formOf, mcpPrm, recordingFetch, seedSchool, type Exchange, type Seeded } from '../helpers/mcp.ts';
import { InMemoryOAuthProviderV2 } from '../helpers/mcp-oauth-provider-v2.ts';
import { postForm } from '../helpers/oauth.ts';
import { freePort } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { UserAgent } from '../helpers/user-agent.ts';

/** ACCESS_TOKEN_TTL_SECONDS default, plus a second. */
const PAST_ACCESS_TTL_MS = 3601_000;

type CallResult = { content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

/**
 * The v2 MCP client package (`@modelcontextprotocol/client`) against /mcp over
 * real HTTP, running its own OAuth flow: discovery from the 401, dynamic
 * registration, PKCE and resource, the code exchange with RFC 9207 `iss`,
 * refresh on an expired token, and step-up on 403 insufficient_scope.
 */
describe.each(STORE_KINDS)('the v2 MCP client package (%s)', (kind) => {
  let server: FlowServer;
  let seeded: Seeded;
  let scopesSupported: string[];
  let mcpUrl: string;
  let prmUrl: string;
  let provider: InMemoryOAuthProviderV2;
  let traffic: ReturnType<typeof recordingFetch>;
  let transport: StreamableHTTPClientTransport;
  let client: Client;

  beforeAll(async () => {
    server = await startFlowServer(kind);
    seeded = await seedSchool(server);
    mcpUrl = `${server.issuer}/mcp`;
    prmUrl = `${server.issuer}/.well-known/oauth-protected-resource/mcp`;
    scopesSupported = (await mcpPrm(server.issuer)).scopes_supported;
    provider = new InMemoryOAuthProviderV2(await freePort());
    traffic = recordingFetch();
    transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider, fetch: traffic.fetch });
    client = new Client({ name: 'lyceum-v2-client-test', version: '1.0.0' });
    await client.connect(transport);
    // The client opens the optional GET stream without awaiting it; the server's 405 keeps later logs in order.
    await vi.waitFor(() => expect(traffic.log.find((e) => e.method === 'GET' && e.url.pathname === '/mcp')?.status).toBe(405));
  });
  afterAll(async () => {
    await client?.close();
    await server?.stop();
  });

  const at = (e: Exchange) => `${e.method} ${e.url.pathname}`;
  const since = (n: number) => traffic.log.slice(n);
  const sorted = (scope: string | undefined) => (scope ?? '').split(' ').filter(Boolean).sort();
  const ids = (rows: unknown) => (rows as { id: string }[]).map((r) => r.id);
  const callTool = async (name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as CallResult;

  async function introspect(token: string): Promise<Record<string, unknown>> {
    const res = await postForm(`${server.issuer}/api/oauth/introspect`, { token, client_id: provider.clientInformation()!.client_id });
    expect(res.status, res.text).toBe(200);
    return res.json;
  }

  /** The browser step: sign in and approve; the callback the loopback listener receives, checked. */
  async function browserStep(url: URL): Promise<URLSearchParams> {
    const callback = await new UserAgent(server.issuer).authorize(url.href, server.user);
    expect(callback.origin + callback.pathname).toBe(provider.redirectUrl);
    expect(callback.searchParams.get('error'), callback.href).toBeNull();
    expect(callback.searchParams.get('iss')).toBe(server.issuer);
    // The client leaves state to the application: it must come back as sent.
    expect(callback.searchParams.get('state')).toBe(url.searchParams.get('state'));
    return callback.searchParams;
  }

  /** The 403 the server answered list_orders with: exactly this challenge. */
  function expectOrdersChallenge(e: Exchange | undefined) {
    expect(e).toMatchObject({ method: 'POST', status: 403 });
    expect(parseChallenge(e!.wwwAuthenticate)).toEqual({
      scheme: 'Bearer',
      params: { error: 'insufficient_scope', scope: 'orders:read', error_description: expect.stringMatching(/\S/), resource_metadata: prmUrl },
    });
  }

  it('connects anonymously: initialize needs no token', () => {
    const init = traffic.log.find((e) => e.method === 'POST' && e.body.includes('"initialize"'));
    expect(init).toMatchObject({ status: 200, authorization: null, wwwAuthenticate: null });
    expect(client.getServerVersion()?.name).toBe('lyceum');
    expect(provider.authorizationUrls).toHaveLength(0);
  });

  it('a scoped tool: 401 → PRM → AS metadata → registration → authorization URL with PKCE S256, resource and state', async () => {
    const start = traffic.log.length;
    await expect(callTool('list_records', { area: 'students' })).rejects.toBeInstanceOf(UnauthorizedError);
    const log = since(start);
    expect(at(log[0]!)).toBe('POST /mcp');
    expect(log[0]).toMatchObject({ status: 401, authorization: null });
    const prmFetch = log.findIndex((e) => e.url.pathname === '/.well-known/oauth-protected-resource/mcp' && e.status === 200);
    const asFetch = log.findIndex((e) => e.url.pathname === '/.well-known/oauth-authorization-server' && e.status === 200);
    expect(prmFetch).toBeGreaterThan(0);
    expect(asFetch).toBeGreaterThan(prmFetch);
    for (const e of log) expect(e.status, at(e)).toBeLessThan(500);

    const registrations = log.filter((e) => at(e) === 'POST /api/oauth/register');
    expect(registrations.map((e) => e.status)).toEqual([201]);
    expect(JSON.parse(registrations[0]!.body)).toMatchObject({ redirect_uris: [provider.redirectUrl], token_endpoint_auth_method: 'none' });

    expect(provider.authorizationUrls).toHaveLength(1);
    const url = provider.lastAuthorizationUrl();
    expect(url.origin + url.pathname).toBe(`${server.issuer}/oauth/authorize`);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: provider.clientInformation()!.client_id,
      redirect_uri: provider.redirectUrl,
      code_challenge_method: 'S256',
      resource: mcpUrl,
      state: provider.states.at(-1),
    });
    expect(url.searchParams.get('code_challenge')).toBe(createHash('sha256').update(provider.codeVerifier()).digest('base64url'));
    // The 401 carried no challenge, so the client asks for the PRM's scopes_supported.
    expect(sorted(url.searchParams.get('scope')!)).toEqual([...scopesSupported].sort());
  });

  it('finishAuth exchanges the code (with iss checked, resource sent); the scoped tool then answers', async () => {
    // The person grants less than asked: students:read only, so a later call can need more.
    const narrowed = new URL(provider.lastAuthorizationUrl().href);
    narrowed.searchParams.set('scope', 'students:read');
    const callback = await browserStep(narrowed);
    const start = traffic.log.length;
    await transport.finishAuth(callback);
    const exchanges = since(start).filter((e) => at(e) === 'POST /api/oauth/token');
    expect(exchanges.map((e) => e.status)).toEqual([200]);
    expect(formOf(exchanges[0]!)).toMatchObject({
      grant_type: 'authorization_code',
      code: callback.get('code'),
      code_verifier: provider.codeVerifier(),
      redirect_uri: provider.redirectUrl,
      client_id: provider.clientInformation()!.client_id,
      resource: mcpUrl,
    });
    const tokens = provider.tokens()!;
    expect(tokens.scope).toBe('students:read');
    expect(tokens.refresh_token).toMatch(/\S/);
    expect(await introspect(tokens.access_token)).toMatchObject({ active: true, aud: mcpUrl, sub: server.user.id, scope: 'students:read' });

    const before = traffic.log.length;
    const result = await callTool('list_records', { area: 'students', limit: 50 });
    expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
    expect(ids(result.structuredContent?.records)).toEqual(seeded.students.map((s) => s.id));
    expect(since(before).find((e) => at(e) === 'POST /mcp')).toMatchObject({ status: 200, authorization: `Bearer ${tokens.access_token}` });
  });

  it('once the access token expires, the client refreshes with resource and retries, without a new authorization', async () => {
    const old = provider.tokens()!;
    server.advance(PAST_ACCESS_TTL_MS);
    const start = traffic.log.length;
    const result = await callTool('list_records', { area: 'students' });
    expect(result.isError ?? false).toBe(false);

    const log = since(start);
    expect(log[0]).toMatchObject({ method: 'POST', status: 401, authorization: `Bearer ${old.access_token}` });
    expect(parseChallenge(log[0]!.wwwAuthenticate).params).toMatchObject({ error: 'invalid_token', resource_metadata: prmUrl });
    const refreshes = log.filter((e) => at(e) === 'POST /api/oauth/token');
    expect(refreshes.map((e) => e.status)).toEqual([200]);
    expect(formOf(refreshes[0]!)).toMatchObject({ grant_type: 'refresh_token', refresh_token: old.refresh_token, resource: mcpUrl });
    const fresh = provider.tokens()!;
    expect(fresh.access_token).not.toBe(old.access_token);
    expect(fresh.refresh_token).not.toBe(old.refresh_token);
    expect(log.at(-1)).toMatchObject({ method: 'POST', status: 200, authorization: `Bearer ${fresh.access_token}` });
    expect(provider.authorizationUrls).toHaveLength(1);
    expect(log.filter((e) => at(e) === 'POST /api/oauth/register')).toHaveLength(0);
    expect(await introspect(old.access_token)).toEqual({ active: false });
  });

  it('step-up: 403 insufficient_scope makes the client authorize again for held ∪ challenged scope, without refreshing; the call then succeeds', async () => {
    const held = provider.tokens()!;
    const start = traffic.log.length;
    await expect(callTool('list_records', { area: 'orders' })).rejects.toBeInstanceOf(UnauthorizedError);
    const log = since(start);
    expectOrdersChallenge(log[0]);
    // RFC 6749 §6: a refresh cannot widen scope, so the client goes straight to a new authorization.
    expect(log.filter((e) => at(e) === 'POST /api/oauth/token')).toHaveLength(0);
    expect(log.filter((e) => at(e) === 'POST /api/oauth/register')).toHaveLength(0);

    expect(provider.authorizationUrls).toHaveLength(2);
    const second = provider.lastAuthorizationUrl();
    expect(sorted(second.searchParams.get('scope')!)).toEqual(expect.arrayContaining(['orders:read', 'students:read']));
    expect(second.searchParams.get('resource')).toBe(mcpUrl);
    expect(second.searchParams.get('client_id')).toBe(provider.clientInformation()!.client_id);

    await transport.finishAuth(await browserStep(second));
    const widened = provider.tokens()!;
    expect(widened.access_token).not.toBe(held.access_token);
    expect(sorted(widened.scope)).toEqual(expect.arrayContaining(['orders:read', 'students:read']));

    const orders = await callTool('list_records', { area: 'orders' });
    expect(orders.isError ?? false, JSON.stringify(orders.content)).toBe(false);
    expect(ids(orders.structuredContent?.records)).toEqual(seeded.orders);
    expect((await callTool('list_records', { area: 'students' })).isError ?? false).toBe(false);
  });
});
