/**
 * Two Lyceum servers on the same PostgreSQL database (with the same
 * KEYS_SECRET and the same PUBLIC_URL, as behind one load balancer) behave as
 * one: clients, codes, tokens, revocations, refresh rotation and signing keys
 * are all in the database. Needs TEST_DATABASE_URL (required in CI).
 */
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callUserinfo } from '../helpers/bearer.ts';
import { authorizeUrl, pkcePair, postForm, registerPublicClient } from '../helpers/oauth.ts';
import { freshPostgresDatabase } from '../helpers/postgres-database.ts';
import { freePort, startTestServer, type TestServer } from '../helpers/server.ts';
import { UserAgent } from '../helpers/user-agent.ts';

const PG = process.env.TEST_DATABASE_URL;
if (!PG) console.warn('\n[lyceum tests] TEST_DATABASE_URL is not set: test/scale/many-instances.test.ts is SKIPPED (it needs one PostgreSQL database for two servers).\n');

const KEYS_SECRET = 'many-instances-keys-secret-0123456789abcdef';
const SCOPE = 'openid profile students:read';

interface Tokens {
  access_token: string;
  refresh_token: string;
  id_token?: string;
}

/** The browser part on `server`: sign in, approve; the code and what the exchange needs. */
async function authorizeOn(server: TestServer, clientId: string, user: { email: string; password: string }) {
  const { verifier, challenge } = pkcePair();
  const redirectUri = 'http://127.0.0.1:47011/callback';
  const url = authorizeUrl(server.url, {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: SCOPE,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'st',
    nonce: 'n-0S6_WzA2Mj',
  });
  const callback = await new UserAgent(server.url).authorize(url, user);
  const code = callback.searchParams.get('code');
  if (!code) throw new Error(`no code: ${callback.href}`);
  return { code, verifier, redirectUri };
}

function redeemOn(server: TestServer, clientId: string, grant: { code: string; verifier: string; redirectUri: string }) {
  return postForm(`${server.url}/api/oauth/token`, {
    grant_type: 'authorization_code',
    code: grant.code,
    redirect_uri: grant.redirectUri,
    client_id: clientId,
    code_verifier: grant.verifier,
  });
}

function refreshOn(server: TestServer, clientId: string, refreshToken: string) {
  return postForm(`${server.url}/api/oauth/token`, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });
}

describe.skipIf(!PG)('two instances on one PostgreSQL database', () => {
  let database: Awaited<ReturnType<typeof freshPostgresDatabase>>;
  /** Default refresh grace. */
  let a: TestServer;
  let b: TestServer;
  /** REFRESH_GRACE_SECONDS=0. */
  let c: TestServer;
  let d: TestServer;
  let user: { email: string; password: string; id: string };

  beforeAll(async () => {
    database = await freshPostgresDatabase();
    // One PUBLIC_URL for all, the load balancer's; each server is called on its own address.
    const shared = { DATABASE_URL: database.url, KEYS_SECRET, PUBLIC_URL: `http://127.0.0.1:${await freePort()}` };
    // Started together, as a deployment starts its instances: all migrate and look for signing keys at once.
    [a, b, c, d] = await Promise.all([
      startTestServer('postgres', shared),
      startTestServer('postgres', shared),
      startTestServer('postgres', { ...shared, REFRESH_GRACE_SECONDS: '0' }),
      startTestServer('postgres', { ...shared, REFRESH_GRACE_SECONDS: '0' }),
    ]);
    user = await a.addUser('owner');
  });

  afterAll(async () => {
    await Promise.all([a, b, c, d].filter(Boolean).map((s) => s.close()));
    await database?.drop();
  });

  async function tokensVia(authorizeServer: TestServer, redeemServer: TestServer, clientId: string): Promise<Tokens> {
    const res = await redeemOn(redeemServer, clientId, await authorizeOn(authorizeServer, clientId, user));
    expect(res.status, res.text).toBe(200);
    return res.json as unknown as Tokens;
  }

  it('a code issued by A is redeemed on B, for a client registered on A', async () => {
    const clientId = await registerPublicClient(a.url);
    const grant = await authorizeOn(a, clientId, user);
    const res = await redeemOn(b, clientId, grant);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String), refresh_token: expect.any(String) });
    // The code is spent for both: a replay on A fails.
    expect((await redeemOn(a, clientId, grant)).status).toBe(400);
  });

  it('a client registered on A authorizes on B, and its tokens work on A', async () => {
    const clientId = await registerPublicClient(a.url);
    const tokens = await tokensVia(b, b, clientId);
    const info = await callUserinfo(a.url, { authorization: `Bearer ${tokens.access_token}` });
    expect(info.status, info.text).toBe(200);
    expect(info.json.sub).toBe(user.id);
  });

  it('a token revoked on A is refused on B at once', async () => {
    const clientId = await registerPublicClient(a.url);
    const tokens = await tokensVia(a, a, clientId);
    expect((await callUserinfo(b.url, { authorization: `Bearer ${tokens.access_token}` })).status).toBe(200);
    const revoked = await postForm(`${a.url}/api/oauth/revoke`, { token: tokens.access_token, client_id: clientId });
    expect(revoked.status, revoked.text).toBe(200);
    const after = await callUserinfo(b.url, { authorization: `Bearer ${tokens.access_token}` });
    expect(after.status).toBe(401);
    expect(after.json.error).toBe('invalid_token');
  });

  it('refreshes racing on A and B within the grace window both get the same single successor', async () => {
    const clientId = await registerPublicClient(a.url);
    for (let round = 0; round < 5; round++) {
      const { refresh_token } = await tokensVia(a, a, clientId);
      const [onA, onB] = await Promise.all([refreshOn(a, clientId, refresh_token), refreshOn(b, clientId, refresh_token)]);
      expect([onA.status, onB.status], `${onA.text} / ${onB.text}`).toEqual([200, 200]);
      expect(onA.json.refresh_token).toBe(onB.json.refresh_token);
      expect(onA.json.access_token).toBe(onB.json.access_token);
      // That successor is the one live continuation, on either instance.
      const next = await refreshOn(b, clientId, onA.json.refresh_token as string);
      expect(next.status, next.text).toBe(200);
    }
  });

  it('with REFRESH_GRACE_SECONDS=0, exactly one of the racing refreshes on two instances succeeds', async () => {
    const clientId = await registerPublicClient(c.url);
    for (let round = 0; round < 5; round++) {
      const { refresh_token } = await tokensVia(c, c, clientId);
      const results = await Promise.all([refreshOn(c, clientId, refresh_token), refreshOn(d, clientId, refresh_token)]);
      expect(results.map((r) => r.status).sort(), results.map((r) => r.text).join(' / ')).toEqual([200, 400]);
      expect(results.find((r) => r.status === 400)!.json.error).toBe('invalid_grant');
    }
  });

  it('an ID token signed on A verifies with the JWKS published by B', async () => {
    const clientId = await registerPublicClient(a.url);
    const tokens = await tokensVia(a, a, clientId);
    expect(tokens.id_token).toEqual(expect.any(String));
    const jwks = (await (await fetch(`${b.url}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
    const { payload } = await jwtVerify(tokens.id_token!, createLocalJWKSet(jwks), { issuer: a.issuer, audience: clientId });
    expect(payload.sub).toBe(user.id);
    // And the reverse: B signs with the same shared keys.
    const fromB = await tokensVia(b, b, clientId);
    const jwksA = (await (await fetch(`${a.url}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
    await expect(jwtVerify(fromB.id_token!, createLocalJWKSet(jwksA), { issuer: a.issuer, audience: clientId })).resolves.toBeDefined();
  });
});
