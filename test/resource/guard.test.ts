import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAuthError } from '../../src/oauth/errors.ts';
import type { Scope } from '../../src/access/scopes.ts';
import { sha256 } from '../../src/oauth/issued-tokens/secrets.ts';
import { authorizeRequest, type Caller, type GuardInput } from '../../src/resource/guard.ts';
import type { ResourceName } from '../../src/resource/protected-resources.ts';
import { callUserinfo, parseChallenge, type JsonResponse } from '../helpers/bearer.ts';
import { obtainTokens, refreshTokens, revokeRequest, startFlowServer, type FlowOptions, type FlowServer, type Overrides, type TokenSet } from '../helpers/flow.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { mcpPost, toolCall } from '../helpers/mcp.ts';

/** ACCESS_TOKEN_TTL_SECONDS default. */
const ACCESS_TTL_MS = 3600 * 1000;
const SCOPE = 'openid profile courses:read';

describe.each(STORE_KINDS)('bearer guard (%s)', (kind) => {
  let server: FlowServer;

  beforeAll(async () => {
    server = await startFlowServer(kind);
  });
  afterAll(() => server.stop());

  const prm = (resource: ResourceName) => (resource === 'api' ? `${server.issuer}/.well-known/oauth-protected-resource` : `${server.issuer}/.well-known/oauth-protected-resource/mcp`);

  async function tokens(opts: FlowOptions = {}, overrides: Overrides = {}): Promise<{ tokens: TokenSet; clientId: string }> {
    const { flow, tokens } = await obtainTokens(server, { scope: SCOPE, ...opts }, overrides);
    return { tokens, clientId: flow.clientId };
  }

  const accessToken = async (opts: FlowOptions = {}, overrides: Overrides = {}) => (await tokens(opts, overrides)).tokens.access_token;

  /** The guard called directly, as a framework-free function. */
  async function guard(authorization: string | undefined, resource: ResourceName, over: Partial<GuardInput> = {}): Promise<Caller> {
    return authorizeRequest(
      { authorization, tokenInQuery: false, required: ['courses:read'], resource, allowAnonymous: false, ...over },
      { store: server.deps.store, issuer: server.issuer, now: server.deps.now() },
    );
  }

  async function refusal(decision: Promise<Caller>): Promise<OAuthError> {
    let caller: Caller;
    try {
      caller = await decision;
    } catch (e) {
      expect(e).toBeInstanceOf(OAuthError);
      return e as OAuthError;
    }
    throw new Error(`the guard let the request through as ${JSON.stringify(caller)}`);
  }

  /** A 401 invalid_token over HTTP: RFC 6750 body and a challenge pointing at the resource's PRM. */
  function expectInvalidTokenResponse(res: JsonResponse, resource: ResourceName) {
    expect({ status: res.status, body: res.json }, res.text).toEqual({
      status: 401,
      body: { error: 'invalid_token', error_description: expect.stringMatching(/\S/) },
    });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const challenge = parseChallenge(res.headers.get('www-authenticate'));
    expect(challenge.scheme).toBe('Bearer');
    expect(challenge.params).toMatchObject({ error: 'invalid_token', resource_metadata: prm(resource) });
    expect(challenge.params.scope).toBeUndefined();
  }

  /** The same decision, taken by the guard function. */
  function expectInvalidTokenError(e: OAuthError, resource: ResourceName) {
    expect({ code: e.code, status: e.status }).toEqual({ code: 'invalid_token', status: 401 });
    const challenge = parseChallenge(e.headers['www-authenticate'] ?? null);
    expect(challenge.scheme).toBe('Bearer');
    expect(challenge.params).toMatchObject({ error: 'invalid_token', resource_metadata: prm(resource) });
  }

  /** Authorization headers that must be refused with invalid_token, each prepared on the live server. */
  const BAD_CREDENTIALS: { why: string; header(): Promise<string> }[] = [
    { why: 'the Basic scheme is not a bearer token', header: async () => 'Basic abc' },
    { why: '"Bearer" carries no token', header: async () => 'Bearer' },
    { why: '"Bearer a b" has two tokens, which is not RFC 6750 b64token syntax', header: async () => 'Bearer a b' },
    { why: 'the token has characters outside b64token', header: async () => 'Bearer lyc_at_abc,def' },
    { why: 'the token was never issued', header: async () => `Bearer lyc_at_${'x'.repeat(43)}` },
    {
      why: 'the access token expired (server clock moved past ACCESS_TOKEN_TTL_SECONDS)',
      header: async () => {
        const token = await accessToken();
        server.advance(ACCESS_TTL_MS + 1000);
        return `Bearer ${token}`;
      },
    },
    {
      why: 'the access token was revoked at POST /api/oauth/revoke',
      header: async () => {
        const { tokens: t, clientId } = await tokens();
        expect((await revokeRequest(server, { clientId }, t.access_token)).status).toBe(200);
        return `Bearer ${t.access_token}`;
      },
    },
    {
      why: 'a refresh token is not an access token',
      header: async () => {
        const { tokens: t } = await tokens();
        expect(t.refresh_token).toBeDefined();
        return `Bearer ${t.refresh_token!}`;
      },
    },
  ];

  describe('a request with no Authorization header is never challenged', () => {
    it('is anonymous on an operation that allows anonymous callers', async () => {
      await expect(guard(undefined, 'mcp', { allowAnonymous: true })).resolves.toEqual({ kind: 'anonymous' });
      await expect(guard(undefined, 'api', { allowAnonymous: true, required: ['openid'] })).resolves.toEqual({ kind: 'anonymous' });
    });

    it('gets 401 invalid_request without WWW-Authenticate at GET /api/oauth/userinfo', async () => {
      const res = await callUserinfo(server.issuer);
      expect({ status: res.status, body: res.json }, res.text).toEqual({
        status: 401,
        body: { error: 'invalid_request', error_description: expect.stringMatching(/\S/) },
      });
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('www-authenticate')).toBeNull();
    });

    it('gets the same 401 invalid_request without a challenge on POST /api/oauth/userinfo', async () => {
      const res = await callUserinfo(server.issuer, { form: { foo: 'bar' } });
      expect(res.status).toBe(401);
      expect(res.json.error).toBe('invalid_request');
      expect(res.headers.get('www-authenticate')).toBeNull();
    });

    it('is refused by the guard function with no challenge when anonymous callers are not allowed', async () => {
      const e = await refusal(guard(undefined, 'mcp', { allowAnonymous: false }));
      expect({ code: e.code, status: e.status }).toEqual({ code: 'invalid_request', status: 401 });
      expect(e.headers['www-authenticate']).toBeUndefined();
    });
  });

  describe('a valid token', () => {
    it('is served at GET /api/oauth/userinfo', async () => {
      const token = await accessToken();
      const res = await callUserinfo(server.issuer, { authorization: `Bearer ${token}` });
      expect(res.status, res.text).toBe(200);
      expect(res.json.sub).toBe(server.user.id);
      expect(res.headers.get('www-authenticate')).toBeNull();
    });

    it.each(['bearer', 'BEARER', 'BeArEr'])('is accepted with the scheme spelled %s (auth schemes are case-insensitive, RFC 7235 §2.1)', async (scheme) => {
      const token = await accessToken();
      const res = await callUserinfo(server.issuer, { authorization: `${scheme} ${token}` });
      expect(res.status, res.text).toBe(200);
      expect(res.json.sub).toBe(server.user.id);
    });

    it('is still accepted shortly before it expires', async () => {
      const token = await accessToken();
      server.advance(ACCESS_TTL_MS - 10_000);
      const res = await callUserinfo(server.issuer, { authorization: `Bearer ${token}` });
      expect(res.status, res.text).toBe(200);
    });

    it('is returned by the guard function as the token caller, whether or not anonymous callers are allowed', async () => {
      const token = await accessToken();
      for (const allowAnonymous of [true, false]) {
        const caller = await guard(`Bearer ${token}`, 'mcp', { allowAnonymous });
        expect(caller).toMatchObject({ kind: 'token', userId: server.user.id });
        if (caller.kind !== 'token') throw new Error('not a token caller');
        expect([...caller.scopes].sort()).toEqual(['courses:read', 'openid', 'profile']);
      }
    });

    it('is decided by the guard as a promise: it resolves to the caller, and rejects a refusal', async () => {
      const token = await accessToken();
      const ctx = { store: server.deps.store, issuer: server.issuer, now: server.deps.now() };
      const input = { tokenInQuery: false, required: ['courses:read'] as Scope[], resource: 'api' as const, allowAnonymous: false };
      await expect(authorizeRequest({ ...input, authorization: `Bearer ${token}` }, ctx)).resolves.toMatchObject({ kind: 'token', userId: server.user.id });
      await expect(authorizeRequest({ ...input, authorization: 'Bearer not-a-token-of-ours' }, ctx)).rejects.toBeInstanceOf(OAuthError);
    });
  });

  describe('an unusable credential is 401 invalid_token with a challenge naming the metadata', () => {
    it.each(BAD_CREDENTIALS)('at GET /api/oauth/userinfo: $why', async ({ header }) => {
      const res = await callUserinfo(server.issuer, { authorization: await header() });
      expectInvalidTokenResponse(res, 'api');
    });

    it('the challenge is readable by a browser client on another origin (WWW-Authenticate is not a CORS-safelisted response header)', async () => {
      const res = await fetch(`${server.issuer}/api/oauth/userinfo`, {
        headers: { origin: 'http://localhost:6274', authorization: 'Bearer lyc_at_unknown' },
      });
      await res.arrayBuffer();
      expect(res.status).toBe(401);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      const exposed = (res.headers.get('access-control-expose-headers') ?? '').split(',').map((h) => h.trim().toLowerCase());
      expect(exposed).toContain('www-authenticate');
    });

    it.each(BAD_CREDENTIALS)('by the guard function for the MCP resource, even where anonymous callers are allowed: $why', async ({ header }) => {
      const authorization = await header();
      for (const allowAnonymous of [true, false]) {
        expectInvalidTokenError(await refusal(guard(authorization, 'mcp', { allowAnonymous })), 'mcp');
      }
    });
  });

  describe('a valid token without a required scope is 403 insufficient_scope', () => {
    it('at GET /api/oauth/userinfo, whose operation needs openid', async () => {
      const token = await accessToken({ scope: 'courses:read profile' });
      const res = await callUserinfo(server.issuer, { authorization: `Bearer ${token}` });
      expect({ status: res.status, body: res.json }, res.text).toEqual({
        status: 403,
        body: { error: 'insufficient_scope', error_description: expect.stringMatching(/\S/) },
      });
      const challenge = parseChallenge(res.headers.get('www-authenticate'));
      expect(challenge.scheme).toBe('Bearer');
      expect(challenge.params).toMatchObject({ error: 'insufficient_scope', scope: 'openid', resource_metadata: prm('api') });
    });

    it('by the guard function, listing every scope the operation needs', async () => {
      const token = await accessToken({ scope: 'openid courses:read' });
      const required: Scope[] = ['courses:read', 'students:read'];
      for (const allowAnonymous of [true, false]) {
        const e = await refusal(guard(`Bearer ${token}`, 'mcp', { required, allowAnonymous }));
        expect({ code: e.code, status: e.status }).toEqual({ code: 'insufficient_scope', status: 403 });
        const challenge = parseChallenge(e.headers['www-authenticate'] ?? null);
        expect(challenge.params).toMatchObject({ error: 'insufficient_scope', scope: 'courses:read students:read', resource_metadata: prm('mcp') });
      }
    });
  });

  describe('a token outside the Authorization header is refused (RFC 9700 §2.4; PRM bearer_methods_supported is header only)', () => {
    it('?access_token= in the query string is 400 invalid_request even though the token is valid', async () => {
      const token = await accessToken();
      const res = await callUserinfo(server.issuer, { query: { access_token: token } });
      expect({ status: res.status, error: res.json.error }, res.text).toEqual({ status: 400, error: 'invalid_request' });
    });

    it('?access_token= is refused even alongside a valid Authorization header', async () => {
      const token = await accessToken();
      const res = await callUserinfo(server.issuer, { authorization: `Bearer ${token}`, query: { access_token: token } });
      expect({ status: res.status, error: res.json.error }, res.text).toEqual({ status: 400, error: 'invalid_request' });
    });

    it('access_token in a form body is 400 invalid_request', async () => {
      const token = await accessToken();
      const res = await callUserinfo(server.issuer, { form: { access_token: token } });
      expect({ status: res.status, error: res.json.error }, res.text).toEqual({ status: 400, error: 'invalid_request' });
    });

    it('the guard function refuses it on an anonymous-allowed operation too', async () => {
      const token = await accessToken();
      const e = await refusal(guard(`Bearer ${token}`, 'mcp', { tokenInQuery: true, allowAnonymous: true }));
      expect({ code: e.code, status: e.status }).toEqual({ code: 'invalid_request', status: 400 });
    });
  });

  describe('resource binding (RFC 8707): a token serves only the resource it was issued for', () => {
    async function expectServes(token: string, where: { api: boolean; mcp: boolean }) {
      const res = await callUserinfo(server.issuer, { authorization: `Bearer ${token}` });
      if (where.api) expect(res.status, res.text).toBe(200);
      else expectInvalidTokenResponse(res, 'api');
      if (where.mcp) await expect(guard(`Bearer ${token}`, 'mcp')).resolves.toMatchObject({ kind: 'token', userId: server.user.id });
      else expectInvalidTokenError(await refusal(guard(`Bearer ${token}`, 'mcp')), 'mcp');
    }

    const boundTo = async (token: string) => (await server.deps.store.tokens.find(sha256(token)))?.resource;

    it('resource={issuer} at authorize: good at the API, invalid_token at /mcp', async () => {
      const token = await accessToken({ resource: server.issuer });
      await expectServes(token, { api: true, mcp: false });
    });

    it('resource={issuer}/mcp at authorize: invalid_token at the API (userinfo), good at /mcp', async () => {
      const token = await accessToken({ resource: `${server.issuer}/mcp` });
      await expectServes(token, { api: false, mcp: true });
    });

    it('no resource: good at both', async () => {
      const token = await accessToken();
      expect(await boundTo(token)).toBeNull();
      await expectServes(token, { api: true, mcp: true });
    });

    it('resource given only at the token endpoint binds the token too', async () => {
      const token = await accessToken({}, { resource: `${server.issuer}/mcp` });
      expect(await boundTo(token)).toBe(`${server.issuer}/mcp`);
      await expectServes(token, { api: false, mcp: true });
    });

    it('the same resource at authorize and at the token endpoint (as the MCP SDK sends it) binds the token', async () => {
      const resource = `${server.issuer}/mcp`;
      const token = await accessToken({ resource }, { resource });
      await expectServes(token, { api: false, mcp: true });
    });

    it('a trailing slash is normalised: {issuer}/mcp/ binds to {issuer}/mcp', async () => {
      const token = await accessToken({ resource: `${server.issuer}/mcp/` });
      expect(await boundTo(token)).toBe(`${server.issuer}/mcp`);
      await expectServes(token, { api: false, mcp: true });
    });

    it('a trailing slash is normalised at the token endpoint: {issuer}/ binds to {issuer}', async () => {
      const token = await accessToken({}, { resource: `${server.issuer}/` });
      expect(await boundTo(token)).toBe(server.issuer);
      await expectServes(token, { api: true, mcp: false });
    });

    it('a refreshed access token keeps the binding of its grant', async () => {
      const { tokens: t, clientId } = await tokens({ resource: `${server.issuer}/mcp` });
      const refreshed = await refreshTokens(server, { clientId }, t.refresh_token!);
      await expectServes(refreshed.access_token, { api: false, mcp: true });
    });
  });

  describe('revocation takes effect at once', () => {
    it('an access token revoked at POST /api/oauth/revoke is refused on the very next request', async () => {
      const { tokens: t, clientId } = await tokens();
      const authorization = `Bearer ${t.access_token}`;
      expect((await callUserinfo(server.issuer, { authorization })).status).toBe(200);
      expect((await revokeRequest(server, { clientId }, t.access_token)).status).toBe(200);
      expectInvalidTokenResponse(await callUserinfo(server.issuer, { authorization }), 'api');
      expectInvalidTokenError(await refusal(guard(authorization, 'mcp')), 'mcp');
    });

    it('revoking the refresh token refuses the access token issued with it at once (RFC 7009 §2.1)', async () => {
      const { tokens: t, clientId } = await tokens();
      const authorization = `Bearer ${t.access_token}`;
      expect((await callUserinfo(server.issuer, { authorization })).status).toBe(200);
      expect((await revokeRequest(server, { clientId }, t.refresh_token!)).status).toBe(200);
      expectInvalidTokenResponse(await callUserinfo(server.issuer, { authorization }), 'api');
    });
  });
});

/**
 * The bearer guard's refusals, word for word, on a server started inside
 * each test: a token in the query string, and requests needing two scopes.
 */
describe.each(STORE_KINDS)('bearer guard edges (%s)', (kind) => {
  it('refuses an access token in the query string with 400 invalid_request (RFC 9700 §2.4: tokens in URIs leak)', async () => {
    const server = await startFlowServer(kind);
    try {
      const res = await callUserinfo(server.issuer, { query: { access_token: 'anything' } });
      expect(res.status).toBe(400);
      expect(res.json).toEqual({
        error: 'invalid_request',
        error_description: 'Send the access token in the Authorization header, not in the query string or body',
      });
    } finally {
      await server.stop();
    }
  });

  it('lets an anonymous caller read a public view, and only a public view', async () => {
    const server = await startFlowServer(kind);
    try {
      const school = await fetch(`${server.issuer}/api/v1/school`);
      expect(school.status).toBe(200);
      const analytics = await fetch(`${server.issuer}/api/v1/analytics`);
      expect(analytics.status).toBe(401);
      expect(await analytics.json()).toEqual({
        error: 'invalid_request',
        error_description: `This operation needs a Bearer access token with analytics:read; see ${server.issuer}/.well-known/oauth-protected-resource`,
      });
    } finally {
      await server.stop();
    }
  });

  it('names every scope a request needs, plural, space-separated (RFC 6750 §3: scope is a space-delimited list)', async () => {
    const server = await startFlowServer(kind);
    try {
      // One call whose tool needs four scopes.
      const call = toolCall('get_school_summary');
      const anonymous = await mcpPost(server.issuer, call);
      const prm = `${server.issuer}/.well-known/oauth-protected-resource/mcp`;
      expect(anonymous.status).toBe(401);
      // A tokenless request gets no challenge, only the body (docs/decisions.md).
      expect(anonymous.headers.get('www-authenticate')).toBeNull();
      expect(anonymous.json).toEqual({
        error: 'invalid_request',
        error_description: `This operation needs a Bearer access token with courses:read students:read orders:read events:read; see ${prm}`,
      });
      const { tokens } = await obtainTokens(server, { scope: 'courses:read' });
      const weak = await mcpPost(server.issuer, call, { authorization: `Bearer ${tokens.access_token}` });
      const description = 'This operation needs the scopes courses:read students:read orders:read events:read';
      expect(weak.status).toBe(403);
      expect(weak.json).toEqual({ error: 'insufficient_scope', error_description: description });
      expect(weak.headers.get('www-authenticate')).toBe(
        `Bearer error="insufficient_scope", scope="courses:read students:read orders:read events:read", error_description="${description}", resource_metadata="${prm}"`,
      );
    } finally {
      await server.stop();
    }
  });
});
