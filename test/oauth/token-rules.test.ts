/**
 * Token-endpoint rules stated by hand, as a client reads the contract, each
 * with the exact RFC 6749 §5.2 body: PKCE at the token step, redirect_uri
 * comparison, the refresh grace rule once the successor has moved on, the
 * role re-check on refresh, and which claims UserInfo releases for which scope.
 */
import { createHash } from 'node:crypto';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeFlow, exchangeCode, expectBody, obtainTokens, refreshRequest, refreshTokens, startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/** Changes a user's role the way an operator with database access would (no API changes roles). */
async function setRole(databaseUrl: string, userId: string, role: string): Promise<void> {
  if (databaseUrl.startsWith('postgres')) {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await client.query('UPDATE users SET role = $1 WHERE id = $2', [role, userId]);
    } finally {
      await client.end();
    }
    return;
  }
  const db = new SQLite(databaseUrl);
  try {
    db.prepare('UPDATE users SET role = ? WHERE id = ?').run(role, userId);
  } finally {
    db.close();
  }
}

async function userinfo(issuer: string, token: string) {
  const res = await fetch(`${issuer}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe.each(STORE_KINDS)('token endpoint rules stated by hand (%s)', (kind) => {
  let server: FlowServer;
  beforeAll(async () => {
    server = await startFlowServer(kind);
  });
  afterAll(() => server?.stop());

  describe('PKCE at the token step (RFC 7636 §4.6, S256 only)', () => {
    it('refuses a verifier equal to the challenge (plain PKCE at the token step)', async () => {
      const flow = await authorizeFlow(server);
      const res = await exchangeCode(server, flow, { code_verifier: s256(flow.verifier) });
      expectBody(res, 400, { error: 'invalid_grant', error_description: 'code_verifier does not match the code_challenge' });
    });

    it('refuses a well-formed verifier that is not the one hashed into the challenge', async () => {
      const flow = await authorizeFlow(server);
      const wrong = `${flow.verifier.slice(0, -1)}${flow.verifier.endsWith('A') ? 'B' : 'A'}`;
      const res = await exchangeCode(server, flow, { code_verifier: wrong });
      expectBody(res, 400, { error: 'invalid_grant', error_description: 'code_verifier does not match the code_challenge' });
    });

    it('refuses a token request without code_verifier, and burns nothing: the code still works with it', async () => {
      const flow = await authorizeFlow(server);
      expectBody(await exchangeCode(server, flow, { code_verifier: undefined }), 400, { error: 'invalid_request', error_description: 'code_verifier is required' });
      expect((await exchangeCode(server, flow)).status).toBe(200);
    });

    // RFC 7636 §4.1: code-verifier = 43*128unreserved, unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~".
    const MALFORMED: { why: string; verifier: (good: string) => string }[] = [
      { why: '129 characters, one over the 128 allowed', verifier: () => 'a'.repeat(129) },
      { why: 'a character outside the unreserved set at its end', verifier: (g) => `${g}!` },
      { why: 'a character outside the unreserved set at its start', verifier: (g) => `+${g}` },
      { why: 'a space inside', verifier: (g) => `${g.slice(0, 20)} ${g.slice(20)}` },
    ];
    for (const { why, verifier } of MALFORMED) {
      it(`refuses a code_verifier with ${why} as invalid_request (RFC 7636 §4.1)`, async () => {
        const flow = await authorizeFlow(server);
        const res = await exchangeCode(server, flow, { code_verifier: verifier(flow.verifier) });
        expectBody(res, 400, { error: 'invalid_request', error_description: 'code_verifier must be 43 to 128 unreserved characters' });
      });
    }

    it('accepts a verifier of 128 unreserved characters, every kind of them', async () => {
      const verifier = `${'Az09-._~'.repeat(16)}`;
      expect(verifier).toHaveLength(128);
      const flow = await authorizeFlow(server, { verifier });
      expect((await exchangeCode(server, flow)).status).toBe(200);
    });

    it('burns the code on a wrong verifier: the right verifier afterwards is invalid_grant', async () => {
      const flow = await authorizeFlow(server);
      expect((await exchangeCode(server, flow, { code_verifier: s256(flow.verifier) })).status).toBe(400);
      const res = await exchangeCode(server, flow);
      expect({ status: res.status, error: res.json.error }).toEqual({ status: 400, error: 'invalid_grant' });
    });
  });

  describe('redirect_uri at the token step is compared exactly (RFC 6749 §4.1.3)', () => {
    // The authorization request used http://127.0.0.1:PORT/callback (a loopback port may differ from the
    // registered URI's at authorize, docs/decisions.md); the token request must repeat that exact string.
    const VARIANTS: { why: string; change: (uri: string) => string }[] = [
      { why: 'another path', change: (u) => u.replace('/callback', '/other') },
      { why: 'a trailing slash added', change: (u) => `${u}/` },
      { why: 'the path in another case', change: (u) => u.replace('/callback', '/Callback') },
      { why: 'a query added', change: (u) => `${u}?x=1` },
      { why: 'localhost for 127.0.0.1', change: (u) => u.replace('127.0.0.1', 'localhost') },
    ];
    for (const { why, change } of VARIANTS) {
      it(`refuses a redirect_uri with ${why}`, async () => {
        const flow = await authorizeFlow(server);
        const res = await exchangeCode(server, flow, { redirect_uri: change(flow.redirectUri) });
        expectBody(res, 400, { error: 'invalid_grant', error_description: 'redirect_uri does not match the authorization request' });
      });
    }

    it('accepts the very redirect_uri of the authorization request, port included', async () => {
      const flow = await authorizeFlow(server, { port: 45_123 });
      expect(flow.redirectUri).toBe('http://127.0.0.1:45123/callback');
      expect((await exchangeCode(server, flow)).status).toBe(200);
    });
  });

  describe('refresh grace once the successor has itself been rotated', () => {
    it('refuses a replay of the first token inside the grace window once its successor was rotated, and ends the family', async () => {
      const { flow, tokens } = await obtainTokens(server);
      const second = await refreshTokens(server, flow, tokens.refresh_token!);
      const third = await refreshTokens(server, flow, second.refresh_token!);
      server.advance(2_000); // well inside the 10 s window
      expectBody(await refreshRequest(server, flow, tokens.refresh_token!), 400, {
        error: 'invalid_grant',
        error_description: 'The refresh token was already used',
      });
      // The replay revoked the whole family, the newest tokens with it.
      const res = await refreshRequest(server, flow, third.refresh_token!);
      expect({ status: res.status, error: res.json.error }).toEqual({ status: 400, error: 'invalid_grant' });
      expect((await userinfo(server.issuer, third.access_token)).status).toBe(401);
    });
  });

  describe('scopes are re-checked against the role at refresh', () => {
    it('drops from the refreshed token what a demoted user (owner → lecturer) may no longer hold', async () => {
      const owner = await server.addUser('owner');
      const { flow, tokens } = await obtainTokens({ ...server, user: owner }, { scope: 'courses:read members:write' });
      expect(tokens.scope).toBe('courses:read members:write');
      await setRole(server.databaseUrl, owner.id, 'lecturer');
      const refreshed = await refreshTokens(server, flow, tokens.refresh_token!);
      expect(refreshed.scope).toBe('courses:read');
    });

    it('refuses with invalid_scope when a demoted user (owner → student) keeps none of the granted scopes', async () => {
      const owner = await server.addUser('owner');
      const { flow, tokens } = await obtainTokens({ ...server, user: owner }, { scope: 'members:write' });
      await setRole(server.databaseUrl, owner.id, 'student');
      expectBody(await refreshRequest(server, flow, tokens.refresh_token!), 400, {
        error: 'invalid_scope',
        error_description: 'None of the granted scopes is still available to this user',
      });
    });
  });

  describe('UserInfo releases claims by scope (OIDC Core §5.4)', () => {
    const CASES: { scope: string; claims: string[] }[] = [
      { scope: 'openid', claims: ['sub'] },
      { scope: 'openid profile', claims: ['name', 'preferred_username', 'school_role', 'sub', 'updated_at'] },
      { scope: 'openid email', claims: ['email', 'email_verified', 'sub'] },
      { scope: 'openid profile email', claims: ['email', 'email_verified', 'name', 'preferred_username', 'school_role', 'sub', 'updated_at'] },
    ];
    for (const { scope, claims } of CASES) {
      it(`releases exactly ${claims.join(', ')} for scope "${scope}"`, async () => {
        const { tokens } = await obtainTokens(server, { scope });
        const res = await userinfo(server.issuer, tokens.access_token);
        expect(res.status).toBe(200);
        expect(Object.keys(res.body).sort()).toEqual(claims);
        expect(res.body.sub).toBe(server.user.id);
        if (claims.includes('email')) expect({ email: res.body.email, email_verified: res.body.email_verified }).toEqual({ email: server.user.email, email_verified: false });
        if (claims.includes('school_role')) {
          expect(res.body.school_role).toBe('owner');
          expect(res.body.preferred_username).toBe(server.user.email.split('@')[0]);
        }
      });
    }

    it('refuses a token without openid with 403 insufficient_scope', async () => {
      const { tokens } = await obtainTokens(server, { scope: 'profile email' });
      const res = await userinfo(server.issuer, tokens.access_token);
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('insufficient_scope');
    });
  });
});
