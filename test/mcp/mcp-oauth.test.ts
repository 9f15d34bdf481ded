import { createHash } from 'node:crypto';
import { auth, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseChallenge, readJson } from '../helpers/bearer.ts';
import { obtainTokens, revokeRequest, startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { formOf, MCP_SCOPES, mcpPost, mcpPrm, recordingFetch, resultOf, rpc, seedSchool, toolCall, type Exchange, type McpResponse, type Seeded } from '../helpers/mcp.ts';
import { InMemoryOAuthProvider } from '../helpers/mcp-oauth-provider.ts';
import { postForm } from '../helpers/oauth.ts';
import { freePort } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { UserAgent } from '../helpers/user-agent.ts';

/** ACCESS_TOKEN_TTL_SECONDS default, plus a second. */
const PAST_ACCESS_TTL_MS = 3601_000;
/** Calls that need a token, each with the arguments that make them need it. */
const SCOPED_CALLS: [string, Record<string, unknown>][] = [
  ['list_records', { area: 'students' }],
  ['list_records', { area: 'orders' }],
  ['get_analytics', {}],
  ['update_record', { id: 'crs_anything', values: { title: 'x' } }],
];

type CallResult = { content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

describe.each(STORE_KINDS)('MCP server with OAuth (%s)', (kind) => {
  let server: FlowServer;
  let seeded: Seeded;
  let prm: Awaited<ReturnType<typeof mcpPrm>>;
  let mcpUrl: string;
  let prmUrl: string;

  beforeAll(async () => {
    server = await startFlowServer(kind);
    seeded = await seedSchool(server);
    mcpUrl = `${server.issuer}/mcp`;
    prmUrl = `${server.issuer}/.well-known/oauth-protected-resource/mcp`;
    prm = await mcpPrm(server.issuer);
  });
  afterAll(() => server?.stop());

  const ids = (rows: unknown) => (rows as { id: string }[]).map((r) => r.id);
  const sorted = (scope: string) => scope.split(' ').filter(Boolean).sort();

  /** An access token of the server's owner, obtained through the real flow; the granted scope is the requested one. */
  async function accessToken(scope: string, resource?: string): Promise<{ token: string; clientId: string }> {
    const { flow, tokens } = await obtainTokens(server, { scope, ...(resource ? { resource } : {}) });
    expect(sorted(tokens.scope)).toEqual(sorted(scope));
    return { token: tokens.access_token, clientId: flow.clientId };
  }

  async function introspect(token: string, clientId: string): Promise<Record<string, unknown>> {
    const res = await postForm(`${server.issuer}/api/oauth/introspect`, { token, client_id: clientId });
    expect(res.status, res.text).toBe(200);
    return res.json;
  }

  /**
   * After initialization the SDK opens the optional GET stream without
   * awaiting it; waits for the server's 405 so later exchanges are logged in order.
   */
  async function streamRefused(log: Exchange[]) {
    await vi.waitFor(() => expect(log.find((e) => e.method === 'GET' && e.url.pathname === '/mcp')?.status).toBe(405));
  }

  /** RFC 6750 error body and a Bearer challenge naming the MCP resource's metadata, exactly these parameters. */
  function expectChallenge(res: McpResponse, status: 401 | 403, error: 'invalid_token' | 'insufficient_scope', scope?: string) {
    expect({ status: res.status, body: res.json }, res.text).toEqual({ status, body: { error, error_description: expect.stringMatching(/\S/) } });
    const challenge = parseChallenge(res.headers.get('www-authenticate'));
    expect(challenge.scheme).toBe('Bearer');
    expect(challenge.params).toEqual({ error, error_description: expect.stringMatching(/\S/), resource_metadata: prmUrl, ...(scope ? { scope } : {}) });
  }

  describe('bearer tokens at /mcp (raw HTTP)', () => {
    it("the PRM of /mcp names the MCP resource, the issuer and exactly the scoped tools' scopes", () => {
      expect(prm.resource).toBe(mcpUrl);
      expect(prm.authorization_servers).toEqual([server.issuer]);
      expect([...prm.scopes_supported].sort()).toEqual(MCP_SCOPES);
    });

    it('an anonymous call of a scoped tool is 401 invalid_request without WWW-Authenticate', async () => {
      for (const [name, args] of SCOPED_CALLS) {
        const res = await mcpPost(server.issuer, toolCall(name, args));
        expect({ status: res.status, body: res.json }, res.text).toEqual({ status: 401, body: { error: 'invalid_request', error_description: expect.stringContaining(prmUrl) } });
        expect(res.headers.get('www-authenticate'), name).toBeNull();
      }
    });

    it('an unknown or malformed token is 401 invalid_token with the MCP resource_metadata, on scoped and catalog calls alike', async () => {
      for (const authorization of [`Bearer lyc_at_${'x'.repeat(43)}`, 'Bearer not a token', 'Basic dXNlcjpwdw==']) {
        expectChallenge(await mcpPost(server.issuer, toolCall('list_records', { area: 'students' }), { authorization }), 401, 'invalid_token');
        expectChallenge(await mcpPost(server.issuer, toolCall('list_records', { area: 'courses' }), { authorization }), 401, 'invalid_token');
        expectChallenge(await mcpPost(server.issuer, rpc('tools/list'), { authorization }), 401, 'invalid_token');
      }
    });

    it('a valid token bound to the API resource is 401 invalid_token at /mcp', async () => {
      const { token, clientId } = await accessToken('students:read', server.issuer);
      expect((await introspect(token, clientId)).aud).toBe(server.issuer);
      expectChallenge(await mcpPost(server.issuer, toolCall('list_records', { area: 'students' }), { authorization: `Bearer ${token}` }), 401, 'invalid_token');
      expectChallenge(await mcpPost(server.issuer, rpc('tools/list'), { authorization: `Bearer ${token}` }), 401, 'invalid_token');
      // It still works where it is meant to be used.
      const students = await readJson(await fetch(`${server.issuer}/api/v1/students`, { headers: { authorization: `Bearer ${token}` } }));
      expect(students.status).toBe(200);
    });

    it('a revoked token is 401 invalid_token', async () => {
      const { token, clientId } = await accessToken('students:read', mcpUrl);
      expect((await revokeRequest(server, { clientId }, token)).status).toBe(200);
      expectChallenge(await mcpPost(server.issuer, toolCall('list_records', { area: 'students' }), { authorization: `Bearer ${token}` }), 401, 'invalid_token');
    });

    it('a token without students:read (bound to /mcp, or unbound) is 403 insufficient_scope with scope="students:read"', async () => {
      for (const resource of [mcpUrl, undefined]) {
        const { token } = await accessToken('courses:read orders:read', resource);
        const res = await mcpPost(server.issuer, toolCall('list_records', { area: 'students' }), { authorization: `Bearer ${token}` });
        expectChallenge(res, 403, 'insufficient_scope', 'students:read');
        // The catalog stays open to the same token.
        expect(
          ids(
            (resultOf(await mcpPost(server.issuer, toolCall('list_records', { area: 'courses', limit: 50 }), { authorization: `Bearer ${token}` })).structuredContent as Record<string, unknown>)
              .records,
          ),
        ).toEqual(expect.arrayContaining(seeded.courses.published));
      }
    });

    it('with students:read, listing students answers 200 with the students the REST API lists', async () => {
      const bound = await accessToken('students:read', mcpUrl);
      expect((await introspect(bound.token, bound.clientId)).aud).toBe(mcpUrl);
      const unbound = await accessToken('students:read');
      const rest = await readJson(await fetch(`${server.issuer}/api/v1/students?limit=50`, { headers: { authorization: `Bearer ${unbound.token}` } }));
      expect(rest.status).toBe(200);
      for (const { token } of [bound, unbound]) {
        const res = await mcpPost(server.issuer, toolCall('list_records', { area: 'students', limit: 50 }), { authorization: `Bearer ${token}` });
        expect(res.headers.get('www-authenticate')).toBeNull();
        const result = resultOf(res) as CallResult;
        expect(result.isError ?? false).toBe(false);
        // Lists leave long text (a student's notes) out unless asked for by fields.
        expect(result.structuredContent?.records).toEqual((rest.json.data as Record<string, unknown>[]).map(({ notes: _notes, ...student }) => student));
        expect(ids(result.structuredContent?.records)).toEqual(seeded.students.map((s) => s.id));
        for (const s of seeded.students) expect(result.content[0]?.text).toContain(s.email);
      }
    });

    it('tools/list shows a token only what its scopes allow; a tool beyond them is still 403 when called', async () => {
      const { token } = await accessToken('students:read orders:read', mcpUrl);
      const res = await mcpPost(server.issuer, rpc('tools/list'), { authorization: `Bearer ${token}` });
      const tools = resultOf(res).tools as { name: string; inputSchema: { properties: { area?: { enum: string[] } } } }[];
      // Reads only (no write scope), over the catalog and the two areas the token opens; no learner tools without account:read.
      expect(tools.map((t) => t.name)).toEqual(['get_site_info', 'get_course', 'list_records', 'get_record', 'get_course_progress']);
      expect(tools.find((t) => t.name === 'list_records')!.inputSchema.properties.area!.enum).toEqual(expect.arrayContaining(['courses', 'students', 'orders']));
      expect(tools.find((t) => t.name === 'list_records')!.inputSchema.properties.area!.enum).not.toContain('coupons');

      const orders = resultOf(await mcpPost(server.issuer, toolCall('list_records', { area: 'orders' }), { authorization: `Bearer ${token}` })) as CallResult;
      expect(ids(orders.structuredContent?.records)).toEqual(seeded.orders);
      expectChallenge(
        await mcpPost(server.issuer, toolCall('update_record', { id: seeded.courses.published[0], values: { title: 'x' }, dry_run: true }), { authorization: `Bearer ${token}` }),
        403,
        'insufficient_scope',
        'courses:write',
      );
    });

    it('get_analytics with analytics:read returns the same report as GET /api/v1/analytics', async () => {
      const { token } = await accessToken('analytics:read', mcpUrl);
      const result = resultOf(await mcpPost(server.issuer, toolCall('get_analytics', { interval: 'month' }), { authorization: `Bearer ${token}` })) as CallResult;
      expect(result.isError ?? false).toBe(false);
      const { token: apiToken } = await accessToken('analytics:read');
      const rest = await readJson(await fetch(`${server.issuer}/api/v1/analytics?interval=month`, { headers: { authorization: `Bearer ${apiToken}` } }));
      expect(result.structuredContent).toEqual(rest.json);
      expect(result.content[0]?.text).toMatch(/Totals:/);
      expectChallenge(await mcpPost(server.issuer, toolCall('get_analytics'), { authorization: `Bearer ${token}x` }), 401, 'invalid_token');
    });

    it('update_record of a course with courses:write: dry_run changes nothing, dry_run false changes the course', async () => {
      const { token } = await accessToken('courses:write', mcpUrl);
      const id = seeded.courses.published[0]!;
      const readCourse = async () => (await readJson(await fetch(`${server.issuer}/api/v1/courses/${id}`))).json;
      const before = await readCourse();
      expect(before.title).toBe('Intro to Algebra');

      const tools = resultOf(await mcpPost(server.issuer, rpc('tools/list'), { authorization: `Bearer ${token}` })).tools as { name: string; annotations?: { readOnlyHint?: boolean } }[];
      expect(tools.find((t) => t.name === 'update_record')?.annotations?.readOnlyHint).toBe(false);

      const preview = resultOf(
        await mcpPost(server.issuer, toolCall('update_record', { id, values: { title: 'Algebra I', price_cents: 1200 }, dry_run: true }), { authorization: `Bearer ${token}` }),
      ) as CallResult;
      expect(preview.isError ?? false, JSON.stringify(preview.content)).toBe(false);
      expect(preview.structuredContent).toMatchObject({ dry_run: true, changed: ['title', 'price_cents'], record: { id, title: 'Algebra I', price_cents: 1200 } });
      expect(preview.content[0]?.text).toMatch(/^Would change/);
      expect(await readCourse()).toEqual(before);

      const saved = resultOf(
        await mcpPost(server.issuer, toolCall('update_record', { id, values: { title: 'Algebra I', price_cents: 1200 }, dry_run: false }), { authorization: `Bearer ${token}` }),
      ) as CallResult;
      expect(saved.isError ?? false, JSON.stringify(saved.content)).toBe(false);
      expect(saved.structuredContent).toMatchObject({ dry_run: false, changed: ['title', 'price_cents'], record: { id, title: 'Algebra I', price_cents: 1200 } });
      const after = await readCourse();
      expect(after).toMatchObject({ id, title: 'Algebra I', price_cents: 1200, summary: before.summary, slug: before.slug });

      // Nothing to change, or an unknown course: a tool error, not a transport error.
      const empty = resultOf(await mcpPost(server.issuer, toolCall('update_record', { id, values: {} }), { authorization: `Bearer ${token}` })) as CallResult;
      expect(empty.isError).toBe(true);
      const unknown = resultOf(await mcpPost(server.issuer, toolCall('update_record', { id: 'crs_nope', values: { title: 'x' } }), { authorization: `Bearer ${token}` })) as CallResult;
      expect(unknown.isError).toBe(true);
      // A draft can be edited by the school, and stays invisible to the public.
      const draftId = seeded.courses.draft[0]!;
      const draft = resultOf(await mcpPost(server.issuer, toolCall('update_record', { id: draftId, values: { summary: 'Still secret' } }), { authorization: `Bearer ${token}` })) as CallResult;
      expect(draft.structuredContent).toMatchObject({ changed: ['summary'], record: { id: draftId, status: 'draft' } });
      expect((await fetch(`${server.issuer}/api/v1/courses/${draftId}`)).status).toBe(404);
    });
  });

  describe("the SDK client's own OAuth flow", () => {
    let provider: InMemoryOAuthProvider;
    let traffic: ReturnType<typeof recordingFetch>;
    let transport: StreamableHTTPClientTransport;
    let client: Client;

    beforeAll(async () => {
      provider = new InMemoryOAuthProvider({ port: await freePort(), withState: true });
      traffic = recordingFetch();
      transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider, fetch: traffic.fetch });
      client = new Client({ name: 'lyceum-oauth-test', version: '1.0.0' });
      await client.connect(transport);
      await streamRefused(traffic.log);
    });
    afterAll(() => client?.close());

    const at = (e: Exchange) => `${e.method} ${e.url.pathname}`;
    const since = (n: number) => traffic.log.slice(n);

    async function callTool(name: string, args: Record<string, unknown> = {}): Promise<CallResult> {
      return (await client.callTool({ name, arguments: args })) as CallResult;
    }

    /** The browser step: sign in and approve, then the code from the redirect to the loopback listener. */
    async function browserStep(url: URL): Promise<string> {
      const callback = await new UserAgent(server.issuer).authorize(url.href, server.user);
      expect(callback.origin + callback.pathname).toBe(provider.redirectUrl);
      expect(callback.searchParams.get('error'), callback.href).toBeNull();
      expect(callback.searchParams.get('iss')).toBe(server.issuer);
      expect(callback.searchParams.get('state')).toBe(url.searchParams.get('state'));
      const code = callback.searchParams.get('code');
      expect(code).toMatch(/\S/);
      return code!;
    }

    it('connects anonymously: initialize needs no token', () => {
      const init = traffic.log.find((e) => e.method === 'POST' && e.body.includes('"initialize"'));
      expect(init).toMatchObject({ status: 200, authorization: null, wwwAuthenticate: null });
      expect(client.getServerVersion()?.name).toBe('lyceum');
      expect(provider.authorizationUrls).toHaveLength(0);
    });

    it('listing students: 401 → PRM discovery → AS metadata → registration → authorization URL with PKCE S256 and resource', async () => {
      const start = traffic.log.length;
      const err = await callTool('list_records', { area: 'students' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UnauthorizedError);
      const log = since(start);

      const denied = log[0]!;
      expect(at(denied)).toBe('POST /mcp');
      expect(JSON.parse(denied.body)).toMatchObject({ method: 'tools/call', params: { name: 'list_records', arguments: { area: 'students' } } });
      expect(denied).toMatchObject({ status: 401, authorization: null, wwwAuthenticate: null });

      const prmFetch = log.find((e) => e.url.pathname === '/.well-known/oauth-protected-resource/mcp');
      expect(prmFetch).toMatchObject({ method: 'GET', status: 200 });
      const asFetch = log.find((e) => e.url.pathname === '/.well-known/oauth-authorization-server');
      expect(asFetch).toMatchObject({ method: 'GET', status: 200 });
      expect(log.indexOf(prmFetch!)).toBeLessThan(log.indexOf(asFetch!));
      for (const e of log) expect(e.status, at(e)).toBeLessThan(500);

      const registrations = log.filter((e) => at(e) === 'POST /api/oauth/register');
      expect(registrations).toHaveLength(1);
      expect(registrations[0]!.status).toBe(201);
      const dcr = JSON.parse(registrations[0]!.body) as Record<string, unknown>;
      expect(dcr).toMatchObject({ redirect_uris: [provider.redirectUrl], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] });
      expect(dcr.scope).toBe(prm.scopes_supported.join(' '));
      const clientId = provider.clientInformation()?.client_id;
      expect(clientId).toMatch(/\S/);

      expect(provider.authorizationUrls).toHaveLength(1);
      const url = provider.lastAuthorizationUrl();
      expect(url.origin + url.pathname).toBe(`${server.issuer}/oauth/authorize`);
      const q = Object.fromEntries(url.searchParams);
      expect(q).toMatchObject({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: provider.redirectUrl,
        code_challenge_method: 'S256',
        resource: mcpUrl,
        state: provider.states.at(-1),
      });
      // The scope asked for is the PRM's scopes_supported, since the 401 carried no challenge.
      expect(q.scope).toBe(prm.scopes_supported.join(' '));
      expect(q.code_challenge).toBe(createHash('sha256').update(provider.codeVerifier()).digest('base64url'));
    });

    it('after the browser step, finishAuth exchanges the code with resource, and listing students succeeds', async () => {
      const code = await browserStep(provider.lastAuthorizationUrl());
      const start = traffic.log.length;
      await transport.finishAuth(code);
      const tokenRequests = since(start).filter((e) => at(e) === 'POST /api/oauth/token');
      expect(tokenRequests).toHaveLength(1);
      expect(tokenRequests[0]!.status).toBe(200);
      expect(formOf(tokenRequests[0]!)).toMatchObject({
        grant_type: 'authorization_code',
        code,
        code_verifier: provider.codeVerifier(),
        redirect_uri: provider.redirectUrl,
        client_id: provider.clientInformation()!.client_id,
        resource: mcpUrl,
      });
      const tokens = provider.tokens()!;
      expect(tokens.token_type.toLowerCase()).toBe('bearer');
      expect(tokens.refresh_token).toMatch(/\S/);
      expect(sorted(tokens.scope ?? '')).toEqual([...prm.scopes_supported].sort());

      const before = traffic.log.length;
      const result = await callTool('list_records', { area: 'students', limit: 50 });
      expect(result.isError ?? false).toBe(false);
      expect(ids(result.structuredContent?.records)).toEqual(seeded.students.map((s) => s.id));
      expect(since(before).find((e) => at(e) === 'POST /mcp')).toMatchObject({ status: 200, authorization: `Bearer ${tokens.access_token}` });
      // The list is now the owner's daily work: the learner's tools and the staff's, without the site toolset.
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['get_my_progress', 'create_record', 'build_course', 'get_course_progress', 'enroll_student_by_email', 'get_analytics']));
      expect(names).not.toContain('sign_in');
      expect(names).not.toContain('update_school_settings');
    });

    it('the issued token is bound to {issuer}/mcp with exactly the PRM scopes, and refused by the API', async () => {
      const tokens = provider.tokens()!;
      const info = await introspect(tokens.access_token, provider.clientInformation()!.client_id);
      expect(info).toMatchObject({ active: true, aud: mcpUrl, token_type: 'Bearer', sub: server.user.id });
      expect(sorted(String(info.scope))).toEqual([...prm.scopes_supported].sort());
      const api = await readJson(await fetch(`${server.issuer}/api/v1/students`, { headers: { authorization: `Bearer ${tokens.access_token}` } }));
      expect(api.status).toBe(401);
      expect(api.json.error).toBe('invalid_token');
    });

    it('once the access token expires, the SDK refreshes with resource and retries, without a new authorization', async () => {
      const old = provider.tokens()!;
      const savedBefore = provider.savedTokens.length;
      server.advance(PAST_ACCESS_TTL_MS);
      const start = traffic.log.length;

      const result = await callTool('list_records', { area: 'students' });
      expect(result.isError ?? false).toBe(false);
      expect(ids(result.structuredContent?.records)).toEqual(seeded.students.map((s) => s.id));

      const log = since(start);
      const expired = log[0]!;
      expect(at(expired)).toBe('POST /mcp');
      expect(JSON.parse(expired.body)).toMatchObject({ method: 'tools/call', params: { name: 'list_records', arguments: { area: 'students' } } });
      expect(expired).toMatchObject({ status: 401, authorization: `Bearer ${old.access_token}` });
      expect(parseChallenge(expired.wwwAuthenticate).params).toMatchObject({ error: 'invalid_token', resource_metadata: prmUrl });

      const refreshes = log.filter((e) => at(e) === 'POST /api/oauth/token');
      expect(refreshes).toHaveLength(1);
      expect(refreshes[0]!.status).toBe(200);
      const form = formOf(refreshes[0]!);
      expect(form).toMatchObject({ grant_type: 'refresh_token', refresh_token: old.refresh_token, resource: mcpUrl, client_id: provider.clientInformation()!.client_id });
      expect(form.scope).toBeUndefined();

      expect(provider.savedTokens.length).toBe(savedBefore + 1);
      const fresh = provider.tokens()!;
      expect(fresh.access_token).not.toBe(old.access_token);
      expect(fresh.refresh_token).not.toBe(old.refresh_token);
      expect(log.at(-1)).toMatchObject({ method: 'POST', status: 200, authorization: `Bearer ${fresh.access_token}` });
      expect(provider.authorizationUrls).toHaveLength(1);
      expect(log.filter((e) => at(e) === 'POST /api/oauth/register')).toHaveLength(0);

      const clientId = provider.clientInformation()!.client_id;
      expect(await introspect(fresh.access_token, clientId)).toMatchObject({ active: true, aud: mcpUrl });
      expect(await introspect(old.access_token, clientId)).toEqual({ active: false });
    });
  });

  describe('step-up on 403 insufficient_scope', () => {
    /**
     * An SDK client whose first authorization granted students:read only:
     * the authorization URL the SDK made is narrowed before the browser step.
     */
    async function narrowClient(grantTypes?: string[]) {
      const provider = new InMemoryOAuthProvider({ port: await freePort(), withState: true, ...(grantTypes ? { grantTypes } : {}) });
      const traffic = recordingFetch();
      const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider, fetch: traffic.fetch });
      const client = new Client({ name: 'lyceum-step-up-test', version: '1.0.0' });
      await client.connect(transport);
      await streamRefused(traffic.log);
      await expect(client.callTool({ name: 'list_records', arguments: { area: 'students' } })).rejects.toBeInstanceOf(UnauthorizedError);
      const narrowed = new URL(provider.lastAuthorizationUrl().href);
      narrowed.searchParams.set('scope', 'students:read');
      await transport.finishAuth(await browserStep(provider, narrowed));
      expect(provider.tokens()?.scope).toBe('students:read');
      const ok = (await client.callTool({ name: 'list_records', arguments: { area: 'students' } })) as CallResult;
      expect(ok.isError ?? false).toBe(false);
      return { provider, traffic, transport, client };
    }

    async function browserStep(provider: InMemoryOAuthProvider, url: URL): Promise<string> {
      const callback = await new UserAgent(server.issuer).authorize(url.href, server.user);
      expect(callback.origin + callback.pathname).toBe(provider.redirectUrl);
      expect(callback.searchParams.get('iss')).toBe(server.issuer);
      expect(callback.searchParams.get('state')).toBe(url.searchParams.get('state'));
      return callback.searchParams.get('code')!;
    }

    /** The 403 the server answered list_orders with: exactly this challenge. */
    function expectOrdersChallenge(e: Exchange | undefined) {
      expect(e).toMatchObject({ method: 'POST', status: 403 });
      expect(parseChallenge(e!.wwwAuthenticate)).toEqual({
        scheme: 'Bearer',
        params: { error: 'insufficient_scope', scope: 'orders:read', error_description: expect.stringMatching(/\S/), resource_metadata: prmUrl },
      });
    }

    it('the SDK re-authorizes with orders:read by itself when it holds no refresh token', async () => {
      const { provider, traffic, transport, client } = await narrowClient(['authorization_code']);
      try {
        expect(provider.tokens()?.refresh_token).toBeUndefined();
        const start = traffic.log.length;
        const err = await client.callTool({ name: 'list_records', arguments: { area: 'orders' } }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(UnauthorizedError);
        const log = traffic.log.slice(start);
        expectOrdersChallenge(log[0]);
        expect(log.filter((e) => e.url.pathname === '/api/oauth/token')).toHaveLength(0);
        expect(log.filter((e) => e.url.pathname === '/api/oauth/register')).toHaveLength(0);

        expect(provider.authorizationUrls).toHaveLength(2);
        const second = provider.lastAuthorizationUrl();
        expect(second.searchParams.get('scope')?.split(' ')).toContain('orders:read');
        expect(second.searchParams.get('resource')).toBe(mcpUrl);
        expect(second.searchParams.get('client_id')).toBe(provider.clientInformation()!.client_id);

        await transport.finishAuth(await browserStep(provider, second));
        expect(provider.tokens()?.scope?.split(' ')).toContain('orders:read');
        const orders = (await client.callTool({ name: 'list_records', arguments: { area: 'orders' } })) as CallResult;
        expect(orders.isError ?? false).toBe(false);
        expect(ids(orders.structuredContent?.records)).toEqual(seeded.orders);
      } finally {
        await client.close();
      }
    });

    it("with a refresh token held, the SDK refreshes (which cannot widen scope) and gives up; a new authorization with the challenge's scope then succeeds", async () => {
      const { provider, traffic, transport, client } = await narrowClient();
      try {
        const held = provider.tokens()!;
        expect(held.refresh_token).toMatch(/\S/);
        const start = traffic.log.length;
        const err = await client.callTool({ name: 'list_records', arguments: { area: 'orders' } }).catch((e: unknown) => e);
        const log = traffic.log.slice(start);
        const mcpCalls = log.filter((e) => e.url.pathname === '/mcp');
        expectOrdersChallenge(mcpCalls[0]);

        // @modelcontextprotocol/sdk 1.32: on insufficient_scope, auth() uses the refresh token first
        // (RFC 6749 §6: a refresh never widens scope), retries, gets the identical 403 and stops.
        expect(err).toBeInstanceOf(StreamableHTTPError);
        expect((err as StreamableHTTPError).code).toBe(403);
        const refreshes = log.filter((e) => e.url.pathname === '/api/oauth/token');
        expect(refreshes.map((e) => formOf(e).grant_type)).toEqual(['refresh_token']);
        expect(formOf(refreshes[0]!)).toMatchObject({ refresh_token: held.refresh_token, resource: mcpUrl });
        expect(provider.tokens()?.scope).toBe('students:read');
        expect(mcpCalls).toHaveLength(2);
        expectOrdersChallenge(mcpCalls[1]);
        expect(provider.authorizationUrls).toHaveLength(1);

        // The application steps up itself: drop the tokens and authorize with what it had plus the challenge's scope.
        const challenge = parseChallenge(mcpCalls[1]!.wwwAuthenticate).params;
        const wanted = [...new Set([...(provider.tokens()?.scope ?? '').split(' '), ...challenge.scope!.split(' ')])].join(' ');
        provider.invalidateCredentials('tokens');
        const result = await auth(provider, { serverUrl: mcpUrl, scope: wanted, resourceMetadataUrl: new URL(challenge.resource_metadata!), fetchFn: traffic.fetch });
        expect(result).toBe('REDIRECT');
        const second = provider.lastAuthorizationUrl();
        expect(provider.authorizationUrls).toHaveLength(2);
        expect(second.searchParams.get('scope')).toBe('students:read orders:read');
        expect(second.searchParams.get('resource')).toBe(mcpUrl);

        await transport.finishAuth(await browserStep(provider, second));
        expect(sorted(provider.tokens()?.scope ?? '')).toEqual(['orders:read', 'students:read']);
        const orders = (await client.callTool({ name: 'list_records', arguments: { area: 'orders' } })) as CallResult;
        expect(orders.isError ?? false).toBe(false);
        expect(ids(orders.structuredContent?.records)).toEqual(seeded.orders);
        const students = (await client.callTool({ name: 'list_records', arguments: { area: 'students' } })) as CallResult;
        expect(students.isError ?? false).toBe(false);
      } finally {
        await client.close();
      }
    });
  });
});
