import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authorizeFlow,
  codeExchangeFields,
  databaseDump,
  DEFAULT_SCOPE,
  exchangeCode,
  expectOAuthError,
  obtainTokens,
  postRaw,
  refreshRequest,
  refreshTokens,
  registerClient,
  startFlowServer,
  type CodeFlow,
  type FlowOptions,
  type FlowServer,
  type FormResponse,
  type TokenSet,
  expectBody,
  revokeRequest,
} from '../helpers/flow.ts';
import { pkcePair } from '../helpers/oauth.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

/** One token request that must fail, and why. */
interface FailingExchange {
  why: string;
  flow?: FlowOptions;
  send(server: FlowServer, flow: CodeFlow): Promise<FormResponse>;
}

/** How credentials are kept at rest, written out by hand: SHA-256 of the whole credential, base64url. */
const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');
const randomCredential = (prefix: string) => prefix + randomBytes(32).toString('base64url');
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

const INVALID_REQUEST: FailingExchange[] = [
  { why: 'grant_type is missing', send: (s, f) => exchangeCode(s, f, { grant_type: undefined }) },
  { why: 'code is missing', send: (s, f) => exchangeCode(s, f, { code: undefined }) },
  { why: 'redirect_uri is missing', send: (s, f) => exchangeCode(s, f, { redirect_uri: undefined }) },
  { why: 'code_verifier is missing (PKCE is mandatory)', send: (s, f) => exchangeCode(s, f, { code_verifier: undefined }) },
  {
    why: 'code_verifier has 42 characters, fewer than the 43 RFC 7636 §4.1 requires',
    send: (s, f) => exchangeCode(s, f, { code_verifier: f.verifier.slice(0, 42) }),
  },
  {
    why: 'code is sent twice (RFC 6749 §3.2: parameters must not be included more than once)',
    send: (s, f) => postRaw(s.tokenEndpoint, `${new URLSearchParams(codeExchangeFields(f)).toString()}&code=${encodeURIComponent(f.code)}`, 'application/x-www-form-urlencoded'),
  },
  {
    why: 'the body is JSON, not application/x-www-form-urlencoded (RFC 6749 §4.1.3)',
    send: (s, f) => postRaw(s.tokenEndpoint, JSON.stringify(codeExchangeFields(f)), 'application/json'),
  },
];

const UNSUPPORTED_GRANT_TYPE: FailingExchange[] = [
  {
    why: 'grant_type=password (resource owner password credentials are not offered)',
    send: (s, f) => exchangeCode(s, f, { grant_type: 'password', username: s.user.email, password: s.user.password }),
  },
  {
    why: 'grant_type=client_credentials (not offered)',
    send: (s, f) => exchangeCode(s, f, { grant_type: 'client_credentials' }),
  },
];

const INVALID_CLIENT: FailingExchange[] = [
  { why: 'the client_id is not registered', send: (s, f) => exchangeCode(s, f, { client_id: randomCredential('lyc_client_') }) },
  {
    why: 'client_id is missing, so the client is not identified (RFC 6749 §5.2: no client authentication included)',
    send: (s, f) => exchangeCode(s, f, { client_id: undefined }),
  },
  {
    why: 'a confidential client sends no client_secret',
    flow: { confidential: true },
    send: (s, f) => exchangeCode(s, f, { client_secret: undefined }),
  },
  {
    why: 'a confidential client sends a wrong client_secret',
    flow: { confidential: true },
    send: (s, f) => exchangeCode(s, f, { client_secret: randomCredential('lyc_cs_') }),
  },
  {
    why: 'a public client (token_endpoint_auth_method none) sends a client_secret',
    send: (s, f) => exchangeCode(s, f, { client_secret: randomCredential('lyc_cs_') }),
  },
  {
    why: 'the client authenticates with HTTP Basic, a method it did not register (client_secret_post)',
    flow: { confidential: true },
    send: (s, f) => exchangeCode(s, f, { client_secret: undefined }, { authorization: basic(f.clientId, f.clientSecret!) }),
  },
];

const REDIRECT_PORT = 41_000;

const INVALID_GRANT: FailingExchange[] = [
  { why: 'the code was never issued', send: (s, f) => exchangeCode(s, f, { code: randomCredential('lyc_ac_') }) },
  {
    why: 'the code was issued to another client',
    send: async (s, f) => exchangeCode(s, f, { client_id: (await registerClient(s.issuer)).clientId }),
  },
  {
    why: 'redirect_uri names another port than the authorization request (RFC 6749 §4.1.3: must be identical)',
    flow: { port: REDIRECT_PORT },
    send: (s, f) => exchangeCode(s, f, { redirect_uri: `http://127.0.0.1:${REDIRECT_PORT + 1}/callback` }),
  },
  {
    why: 'redirect_uri omits the port the authorization request used',
    flow: { port: REDIRECT_PORT },
    send: (s, f) => exchangeCode(s, f, { redirect_uri: 'http://127.0.0.1/callback' }),
  },
  {
    why: 'code_verifier does not hash to the code_challenge (RFC 7636 §4.6)',
    send: (s, f) => exchangeCode(s, f, { code_verifier: pkcePair().verifier }),
  },
  {
    why: 'the code expired (61 s after issue, lifetime 60 s)',
    send: (s, f) => {
      s.advance(61_000);
      return exchangeCode(s, f);
    },
  },
];

describe.each(STORE_KINDS)('token endpoint (%s)', (kind) => {
  let server: FlowServer;
  const store = () => server.deps.store;
  const stored = (token: string) => store().tokens.find(sha256(token));

  beforeAll(async () => {
    server = await startFlowServer(kind);
  });
  afterAll(async () => {
    await server?.stop();
  });

  describe('authorization_code grant', () => {
    it('issues a Bearer access token, a refresh token and the granted scope, marked not cacheable', async () => {
      const flow = await authorizeFlow(server);
      const res = await exchangeCode(server, flow);
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('pragma')).toBe('no-cache');
      expect(res.json).toEqual({
        access_token: expect.stringMatching(/^lyc_at_/),
        token_type: 'Bearer',
        expires_in: expect.any(Number),
        refresh_token: expect.stringMatching(/^lyc_rt_/),
        scope: DEFAULT_SCOPE,
      });
      expect(res.json.expires_in).toBeGreaterThan(0);
      expect(res.json.access_token).not.toBe(res.json.refresh_token);
    });

    for (const { why, flow, send } of INVALID_REQUEST) {
      it(`400 invalid_request when ${why}`, async () => {
        expectOAuthError(await send(server, await authorizeFlow(server, flow)), 400, 'invalid_request');
      });
    }

    for (const { why, flow, send } of UNSUPPORTED_GRANT_TYPE) {
      it(`400 unsupported_grant_type for ${why}`, async () => {
        expectOAuthError(await send(server, await authorizeFlow(server, flow)), 400, 'unsupported_grant_type');
      });
    }

    for (const { why, flow, send } of INVALID_CLIENT) {
      it(`401 invalid_client when ${why}`, async () => {
        expectOAuthError(await send(server, await authorizeFlow(server, flow)), 401, 'invalid_client');
      });
    }

    it('answers HTTP Basic client authentication with a Basic challenge, as RFC 6749 §5.2 requires for 401', async () => {
      const f = await authorizeFlow(server, { confidential: true });
      const res = await exchangeCode(server, f, { client_secret: undefined }, { authorization: basic(f.clientId, f.clientSecret!) });
      expectOAuthError(res, 401, 'invalid_client');
      expect(res.headers.get('www-authenticate') ?? '').toMatch(/^Basic\b/i);
    });

    for (const { why, flow, send } of INVALID_GRANT) {
      it(`400 invalid_grant when ${why}`, async () => {
        expectOAuthError(await send(server, await authorizeFlow(server, flow)), 400, 'invalid_grant');
      });
    }

    it('refuses a replayed code and revokes the access and refresh tokens the first exchange issued', async () => {
      const flow = await authorizeFlow(server);
      const first = await exchangeCode(server, flow);
      expect(first.status, first.text).toBe(200);
      const tokens = first.json as unknown as TokenSet;

      expectOAuthError(await exchangeCode(server, flow), 400, 'invalid_grant');

      expect((await stored(tokens.access_token))?.revokedAt).toEqual(expect.any(Number));
      expect((await stored(tokens.refresh_token!))?.revokedAt).toEqual(expect.any(Number));
      expectOAuthError(await refreshRequest(server, flow, tokens.refresh_token!), 400, 'invalid_grant');
    });

    it('revokes, on a replayed code, the tokens already rotated from its refresh token too', async () => {
      const { flow, tokens } = await obtainTokens(server);
      const rotated = await refreshTokens(server, flow, tokens.refresh_token!);

      expectOAuthError(await exchangeCode(server, flow), 400, 'invalid_grant');

      expect((await stored(rotated.access_token))?.revokedAt).toEqual(expect.any(Number));
      expect((await stored(rotated.refresh_token!))?.revokedAt).toEqual(expect.any(Number));
      expectOAuthError(await refreshRequest(server, flow, rotated.refresh_token!), 400, 'invalid_grant');
    });

    it('lets exactly one of 10 parallel exchanges of one code succeed; the others are invalid_grant replays', async () => {
      const flow = await authorizeFlow(server);
      const results = await Promise.all(Array.from({ length: 10 }, () => exchangeCode(server, flow)));
      const ok = results.filter((r) => r.status === 200);
      expect(ok.map((r) => r.status)).toEqual([200]);
      for (const r of results.filter((x) => x.status !== 200)) expectOAuthError(r, 400, 'invalid_grant');
      // The code was used more than once: what it issued is revoked (RFC 6749 §4.1.2).
      const winner = ok[0]!.json as unknown as TokenSet;
      expect((await stored(winner.access_token))?.revokedAt).toEqual(expect.any(Number));
      expect((await stored(winner.refresh_token!))?.revokedAt).toEqual(expect.any(Number));
    });

    describe('resource (RFC 8707)', () => {
      it('issues a token bound to the resource named at authorize when the token request names it again', async () => {
        const mcp = `${server.issuer}/mcp`;
        const flow = await authorizeFlow(server, { resource: mcp });
        const res = await exchangeCode(server, flow, { resource: mcp });
        expect(res.status, res.text).toBe(200);
        expect((await stored(res.json.access_token as string))?.resource).toBe(mcp);
      });

      it('400 invalid_target when the token request names another resource than the one bound at authorize', async () => {
        const flow = await authorizeFlow(server, { resource: `${server.issuer}/mcp` });
        expectOAuthError(await exchangeCode(server, flow, { resource: server.issuer }), 400, 'invalid_target');
      });

      it('400 invalid_target when the resource is not one this server protects', async () => {
        const flow = await authorizeFlow(server);
        expectOAuthError(await exchangeCode(server, flow, { resource: 'https://api.elsewhere.example/' }), 400, 'invalid_target');
      });
    });
  });

  describe('confidential clients (client_secret_post)', () => {
    it('completes authorize → token → refresh with the client_secret in the body', async () => {
      const { flow, tokens } = await obtainTokens(server, { confidential: true });
      expect(tokens.token_type).toBe('Bearer');
      expect(tokens.refresh_token).toMatch(/^lyc_rt_/);
      const refreshed = await refreshTokens(server, flow, tokens.refresh_token!);
      expect(refreshed.scope).toBe(DEFAULT_SCOPE);
    });

    it('stores the client secret only as its SHA-256', async () => {
      const client = await registerClient(server.issuer, { confidential: true });
      const row = await store().clients.find(client.clientId);
      expect(row?.secretHash).not.toBe(client.clientSecret);
      expect(row?.secretHash).toBe(sha256(client.clientSecret!));
      expect(await databaseDump(server.databaseUrl)).not.toContain(client.clientSecret!);
    });
  });

  describe('credentials at rest', () => {
    it('stores codes, access tokens and refresh tokens only as SHA-256 hashes', async () => {
      const flow = await authorizeFlow(server);
      const before = await databaseDump(server.databaseUrl);
      expect(before).not.toContain(flow.code);
      expect(before).toContain(sha256(flow.code));

      const res = await exchangeCode(server, flow);
      expect(res.status, res.text).toBe(200);
      const tokens = res.json as unknown as TokenSet;
      const rotated = await refreshTokens(server, flow, tokens.refresh_token!);

      for (const [token, kind] of [
        [tokens.access_token, 'access'],
        [tokens.refresh_token!, 'refresh'],
        [rotated.access_token, 'access'],
        [rotated.refresh_token!, 'refresh'],
      ] as const) {
        expect((await stored(token))?.kind).toBe(kind);
        expect(await store().tokens.find(token)).toBeUndefined();
      }
      const dump = await databaseDump(server.databaseUrl);
      for (const secret of [flow.code, tokens.access_token, tokens.refresh_token!, rotated.access_token, rotated.refresh_token!]) {
        // Neither the whole credential nor its random part without the readable prefix.
        expect(dump).not.toContain(secret);
        expect(dump).not.toContain(secret.slice(7));
      }
    });
  });

  describe('refresh_token grant', () => {
    it('rotates: every refresh returns a new access and refresh token, not cacheable', async () => {
      const { flow, tokens } = await obtainTokens(server);
      const res = await refreshRequest(server, flow, tokens.refresh_token!);
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('pragma')).toBe('no-cache');
      expect(res.json).toEqual({
        access_token: expect.stringMatching(/^lyc_at_/),
        token_type: 'Bearer',
        expires_in: expect.any(Number),
        refresh_token: expect.stringMatching(/^lyc_rt_/),
        scope: DEFAULT_SCOPE,
      });
      const second = res.json as unknown as TokenSet;
      const third = await refreshTokens(server, flow, second.refresh_token!);
      const seen = [tokens, second, third];
      expect(new Set(seen.map((t) => t.refresh_token)).size).toBe(3);
      expect(new Set(seen.map((t) => t.access_token)).size).toBe(3);
    });

    it('400 invalid_grant for a rotated refresh token used again after the grace window', async () => {
      const { flow, tokens } = await obtainTokens(server);
      await refreshTokens(server, flow, tokens.refresh_token!);
      server.advance(11_000);
      expectOAuthError(await refreshRequest(server, flow, tokens.refresh_token!), 400, 'invalid_grant');
    });

    it('returns the very same successor tokens to a replay inside the grace window', async () => {
      const { flow, tokens } = await obtainTokens(server);
      const first = await refreshTokens(server, flow, tokens.refresh_token!);
      server.advance(5_000);
      const replay = await refreshTokens(server, flow, tokens.refresh_token!);
      expect(replay.access_token).toBe(first.access_token);
      expect(replay.refresh_token).toBe(first.refresh_token);
      expect(replay.scope).toBe(first.scope);
      expect(replay.token_type).toBe('Bearer');
      // The successor stays the live head of the family.
      const next = await refreshTokens(server, flow, first.refresh_token!);
      expect(next.refresh_token).not.toBe(first.refresh_token);
    });

    it('revokes the whole family when a rotated refresh token is replayed after the grace window', async () => {
      const { flow, tokens } = await obtainTokens(server);
      const successor = await refreshTokens(server, flow, tokens.refresh_token!);
      server.advance(11_000);
      expectOAuthError(await refreshRequest(server, flow, tokens.refresh_token!), 400, 'invalid_grant');

      expect((await stored(successor.access_token))?.revokedAt).toEqual(expect.any(Number));
      expect((await stored(successor.refresh_token!))?.revokedAt).toEqual(expect.any(Number));
      expect((await stored(tokens.access_token))?.revokedAt).toEqual(expect.any(Number));
      expectOAuthError(await refreshRequest(server, flow, successor.refresh_token!), 400, 'invalid_grant');
    });

    it('gives 10 parallel refreshes of one token the same successor inside the grace window', async () => {
      const { flow, tokens } = await obtainTokens(server);
      const results = await Promise.all(Array.from({ length: 10 }, () => refreshRequest(server, flow, tokens.refresh_token!)));
      for (const r of results) expect(r.status, r.text).toBe(200);
      expect(new Set(results.map((r) => r.json.access_token)).size).toBe(1);
      expect(new Set(results.map((r) => r.json.refresh_token)).size).toBe(1);
      const successor = results[0]!.json.refresh_token as string;
      expect(successor).not.toBe(tokens.refresh_token);
      expect((await stored(successor))?.revokedAt).toBeNull();
      await refreshTokens(server, flow, successor);
    });

    it('narrows the scope when the refresh asks for a subset of the grant', async () => {
      const { flow, tokens } = await obtainTokens(server);
      const narrowed = await refreshTokens(server, flow, tokens.refresh_token!, { scope: 'courses:read' });
      expect(narrowed.scope).toBe('courses:read');
      expect((await stored(narrowed.access_token))?.scope).toBe('courses:read');
    });

    it('keeps the refresh token scope of the grant after a narrowed refresh (RFC 6749 §6: new refresh token scope MUST be identical)', async () => {
      const { flow, tokens } = await obtainTokens(server);
      const narrowed = await refreshTokens(server, flow, tokens.refresh_token!, { scope: 'courses:read' });
      expect((await stored(narrowed.refresh_token!))?.scope).toBe(DEFAULT_SCOPE);
      // "if omitted is treated as equal to the scope originally granted by the resource owner"
      const full = await refreshTokens(server, flow, narrowed.refresh_token!);
      expect(full.scope).toBe(DEFAULT_SCOPE);
    });

    for (const { why, scope } of [
      { why: 'it adds a scope that was not granted', scope: `${DEFAULT_SCOPE} orders:read` },
      { why: 'it names a scope that does not exist', scope: 'courses:read no_such:scope' },
    ]) {
      it(`400 invalid_scope for a refresh whose scope widens the grant: ${why}`, async () => {
        const { flow, tokens } = await obtainTokens(server);
        expectOAuthError(await refreshRequest(server, flow, tokens.refresh_token!, { scope }), 400, 'invalid_scope');
      });
    }

    it('400 invalid_grant for a refresh token that was issued to another client', async () => {
      const { tokens } = await obtainTokens(server);
      const other = await registerClient(server.issuer);
      expectOAuthError(await refreshRequest(server, other, tokens.refresh_token!), 400, 'invalid_grant');
      // The rightful client can still use it.
      expect((await stored(tokens.refresh_token!))?.rotatedAt).toBeNull();
    });

    it('400 invalid_grant for a refresh token that was never issued', async () => {
      const client = await registerClient(server.issuer);
      expectOAuthError(await refreshRequest(server, client, randomCredential('lyc_rt_')), 400, 'invalid_grant');
    });

    it('400 invalid_grant when an access token is presented as refresh_token', async () => {
      const { flow, tokens } = await obtainTokens(server);
      expectOAuthError(await refreshRequest(server, flow, tokens.access_token), 400, 'invalid_grant');
    });

    it('400 invalid_request when refresh_token is missing', async () => {
      const client = await registerClient(server.issuer);
      expectOAuthError(await refreshRequest(server, client, '', { refresh_token: undefined }), 400, 'invalid_request');
    });

    it('issues no refresh token to a client registered for authorization_code only, and refuses its refresh with unauthorized_client', async () => {
      const { flow, tokens } = await obtainTokens(server, { grantTypes: ['authorization_code'] });
      expect(tokens.access_token).toMatch(/^lyc_at_/);
      expect(tokens).not.toHaveProperty('refresh_token');
      expectOAuthError(await refreshRequest(server, flow, randomCredential('lyc_rt_')), 400, 'unauthorized_client');
    });

    it('accepts on refresh the resource the grant is bound to, as the MCP SDK sends it', async () => {
      const mcp = `${server.issuer}/mcp`;
      const { flow, tokens } = await obtainTokens(server, { resource: mcp }, { resource: mcp });
      const refreshed = await refreshTokens(server, flow, tokens.refresh_token!, { resource: mcp });
      expect((await stored(refreshed.access_token))?.resource).toBe(mcp);
      expect((await stored(refreshed.refresh_token!))?.resource).toBe(mcp);
    });

    it('400 invalid_target when the refresh names another resource than the grant is bound to', async () => {
      const { flow, tokens } = await obtainTokens(server, { resource: `${server.issuer}/mcp` });
      expectOAuthError(await refreshRequest(server, flow, tokens.refresh_token!, { resource: server.issuer }), 400, 'invalid_target');
    });

    it('401 invalid_client when a confidential client refreshes without its client_secret', async () => {
      const { flow, tokens } = await obtainTokens(server, { confidential: true });
      expectOAuthError(await refreshRequest(server, flow, tokens.refresh_token!, { client_secret: undefined }), 401, 'invalid_client');
    });
  });

  describe('refresh without a grace window (REFRESH_GRACE_SECONDS=0)', () => {
    let strict: FlowServer;
    beforeAll(async () => {
      strict = await startFlowServer(kind, { REFRESH_GRACE_SECONDS: '0' });
    });
    afterAll(async () => {
      await strict?.stop();
    });

    it('400 invalid_grant for a rotated refresh token used again', async () => {
      const { flow, tokens } = await obtainTokens(strict);
      await refreshTokens(strict, flow, tokens.refresh_token!);
      strict.advance(1_000);
      expectOAuthError(await refreshRequest(strict, flow, tokens.refresh_token!), 400, 'invalid_grant');
    });

    it('400 invalid_grant for a replay in the same millisecond as the rotation: a zero window admits no replay', async () => {
      const { flow, tokens } = await obtainTokens(strict);
      const restart = strict.freezeClock();
      try {
        await refreshTokens(strict, flow, tokens.refresh_token!);
        expectOAuthError(await refreshRequest(strict, flow, tokens.refresh_token!), 400, 'invalid_grant');
      } finally {
        restart();
      }
    });

    it('lets exactly one of 10 parallel refreshes of one token succeed; the others are invalid_grant', async () => {
      const { flow, tokens } = await obtainTokens(strict);
      const results = await Promise.all(Array.from({ length: 10 }, () => refreshRequest(strict, flow, tokens.refresh_token!)));
      const ok = results.filter((r) => r.status === 200);
      expect(ok.map((r) => r.status)).toEqual([200]);
      for (const r of results.filter((x) => x.status !== 200)) expectOAuthError(r, 400, 'invalid_grant');
    });
  });

  describe('refresh token lifetime (REFRESH_TOKEN_TTL_SECONDS=3600)', () => {
    let shortLived: FlowServer;
    beforeAll(async () => {
      shortLived = await startFlowServer(kind, { REFRESH_TOKEN_TTL_SECONDS: '3600' });
    });
    afterAll(async () => {
      await shortLived?.stop();
    });

    it('refreshes while the refresh token is younger than its lifetime', async () => {
      const { flow, tokens } = await obtainTokens(shortLived);
      shortLived.advance(3_599_000);
      const res = await refreshRequest(shortLived, flow, tokens.refresh_token!);
      expect(res.status, res.text).toBe(200);
      expect(res.json).toMatchObject({ token_type: 'Bearer', scope: tokens.scope, refresh_token: expect.stringMatching(/^lyc_rt_/) });
      expect(res.json.refresh_token).not.toBe(tokens.refresh_token);
    });

    it('400 invalid_grant for a refresh token older than its lifetime (3601 s of 3600 s)', async () => {
      const { flow, tokens } = await obtainTokens(shortLived);
      shortLived.advance(3_601_000);
      expectOAuthError(await refreshRequest(shortLived, flow, tokens.refresh_token!), 400, 'invalid_grant');
    });
  });
});

/**
 * The token and revocation endpoints at their edges: which Authorization
 * headers count as HTTP Basic, how a confidential client's secret is compared,
 * parameters that are too long or repeated, a replay whose successor has
 * already been used, and the no-store header of a revocation answer.
 */
describe.each(STORE_KINDS)('the token endpoint at its edges (%s)', (kind) => {
  let server: FlowServer;
  beforeAll(async () => {
    server = await startFlowServer(kind);
  });
  afterAll(() => server?.stop());

  it('ignores an Authorization header of another scheme than Basic and authenticates the client from the body', async () => {
    const flow = await authorizeFlow(server);
    const res = await exchangeCode(server, flow, {}, { authorization: 'Bearer not-a-client-credential' });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ token_type: 'Bearer', scope: 'courses:read students:read' });
  });

  it('refuses HTTP Basic whatever the case of the scheme name, with a Basic challenge (RFC 6749 §5.2)', async () => {
    const flow = await authorizeFlow(server);
    const basic = `BASIC ${Buffer.from(`${flow.clientId}:x`).toString('base64')}`;
    const res = await exchangeCode(server, flow, {}, { authorization: basic });
    expectBody(res, 401, {
      error: 'invalid_client',
      error_description: 'HTTP Basic client authentication is not supported; send client_id (and client_secret) in the body',
    });
    expect(res.headers.get('www-authenticate')).toBe('Basic realm="lyceum", charset="UTF-8"');
  });

  it('refuses a confidential client whose client_secret is wrong but of the right length (RFC 6749 §5.2 invalid_client)', async () => {
    const flow = await authorizeFlow(server, { confidential: true });
    const secret = flow.clientSecret!;
    const wrong = `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    expectBody(await exchangeCode(server, flow, { client_secret: wrong }), 401, {
      error: 'invalid_client',
      error_description: 'Client authentication failed',
    });
    // The code was not touched: the right secret still redeems it.
    expect((await exchangeCode(server, flow)).status).toBe(200);
  });

  it('refuses a client_id longer than 200 characters as invalid_request', async () => {
    const flow = await authorizeFlow(server);
    expectBody(await exchangeCode(server, flow, { client_id: 'c'.repeat(201) }), 400, {
      error: 'invalid_request',
      error_description: 'client_id is too long',
    });
  });

  it('refuses two resource parameters at the token step as invalid_target (RFC 8707 §2.2, one resource per token)', async () => {
    const flow = await authorizeFlow(server);
    const body = new URLSearchParams(codeExchangeFields(flow));
    body.append('resource', server.issuer);
    body.append('resource', `${server.issuer}/mcp`);
    expectBody(await postRaw(server.tokenEndpoint, body.toString(), 'application/x-www-form-urlencoded'), 400, {
      error: 'invalid_target',
      error_description: 'Send one resource per request',
    });
  });

  it('ends the family when a token is replayed inside the grace window after its successor was itself refreshed', async () => {
    const { flow, tokens } = await obtainTokens(server);
    const restart = server.freezeClock();
    try {
      const first = await refreshTokens(server, flow, tokens.refresh_token!);
      const second = await refreshTokens(server, flow, first.refresh_token!);
      // The successor the replay would get back is no longer current: returning it would revive a used token.
      expectBody(await refreshRequest(server, flow, tokens.refresh_token!), 400, {
        error: 'invalid_grant',
        error_description: 'The refresh token was already used',
      });
      expectBody(await refreshRequest(server, flow, second.refresh_token!), 400, {
        error: 'invalid_grant',
        error_description: 'The refresh token is invalid or was revoked',
      });
    } finally {
      restart();
    }
  });

  it('answers a revocation with Cache-Control: no-store', async () => {
    const { flow, tokens } = await obtainTokens(server);
    const res = await revokeRequest(server, flow, tokens.access_token);
    expect({ status: res.status, text: res.text, cacheControl: res.headers.get('cache-control') }).toEqual({
      status: 200,
      text: '',
      cacheControl: 'no-store',
    });
  });
});

/**
 * The refresh grant at its edges, stated by hand: the last millisecond of the
 * grace window, the lifetime a replay inside it reports, and the scopes an
 * invalid_scope answer names. Each rule is one a client relies on.
 */
const GRACE_MS = 10_000; // REFRESH_GRACE_SECONDS's default, 10
const ACCESS_TTL_S = 3_600; // ACCESS_TOKEN_TTL_SECONDS's default

describe.each(STORE_KINDS)('the refresh grant at its edges (%s)', (kind) => {
  let server: FlowServer;
  beforeAll(async () => {
    server = await startFlowServer(kind);
  });
  afterAll(() => server?.stop());

  it('returns the same successor to a replay on the last millisecond of the grace window, and ends the family one millisecond later', async () => {
    const { flow, tokens } = await obtainTokens(server);
    const restart = server.freezeClock();
    try {
      const successor = await refreshTokens(server, flow, tokens.refresh_token!);
      server.advance(GRACE_MS);
      const replay = await refreshRequest(server, flow, tokens.refresh_token!);
      expect(replay.status, replay.text).toBe(200);
      expect(replay.json.refresh_token).toBe(successor.refresh_token);
      expect(replay.json.access_token).toBe(successor.access_token);

      server.advance(1);
      expectBody(await refreshRequest(server, flow, tokens.refresh_token!), 400, {
        error: 'invalid_grant',
        error_description: 'The refresh token was already used',
      });
      // Past the window a replay means theft (OAuth 2.0 Security BCP §4.14.2): the successor dies too.
      expectBody(await refreshRequest(server, flow, successor.refresh_token!), 400, {
        error: 'invalid_grant',
        error_description: 'The refresh token is invalid or was revoked',
      });
    } finally {
      restart();
    }
  });

  it('tells a replay inside the grace window how long its access token has left, not a fresh lifetime', async () => {
    const { flow, tokens } = await obtainTokens(server);
    const restart = server.freezeClock();
    try {
      const successor = await refreshTokens(server, flow, tokens.refresh_token!);
      expect(successor.expires_in).toBe(ACCESS_TTL_S);
      server.advance(4_500);
      const replay = await refreshRequest(server, flow, tokens.refresh_token!);
      expect(replay.status, replay.text).toBe(200);
      // 3,600 s issued, 4.5 s gone: RFC 6749 §5.1 expires_in counts whole seconds left.
      expect(replay.json.expires_in).toBe(ACCESS_TTL_S - 5);
      expect(replay.json.access_token).toBe(successor.access_token);
    } finally {
      restart();
    }
  });

  it('names every scope outside the original grant, separated by spaces (RFC 6749 §6)', async () => {
    const { flow, tokens } = await obtainTokens(server, { scope: 'courses:read' });
    expectBody(await refreshRequest(server, flow, tokens.refresh_token!, { scope: 'courses:read students:read no:such' }), 400, {
      error: 'invalid_scope',
      error_description: 'Not part of the original grant: no:such students:read',
    });
  });
});
