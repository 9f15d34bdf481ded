/**
 * The refresh grant, introspection and the bearer guard read a token's state
 * from one function (src/oauth/issued-tokens/state.ts), so at any instant they agree
 * on it. Each case asks introspection first (it changes nothing), then the
 * endpoint that acts on the token, at the same frozen millisecond.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callUserinfo } from '../helpers/bearer.ts';
import { expectBody, isActive, obtainTokens, refreshRequest, refreshTokens, revokeRequest, startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const GRACE_MS = 10_000; // REFRESH_GRACE_SECONDS's default, 10
const ACCESS_TTL_MS = 3_600_000; // ACCESS_TOKEN_TTL_SECONDS's default
const REFRESH_TTL_MS = 30 * 24 * 3_600_000; // REFRESH_TOKEN_TTL_SECONDS's default
const SCOPE = 'openid courses:read';

const alreadyUsed = { error: 'invalid_grant', error_description: 'The refresh token was already used' };
const revokedGrant = { error: 'invalid_grant', error_description: 'The refresh token is invalid or was revoked' };

/** Runs the body on a stopped clock, so every request sees the same millisecond until advance() moves it. */
async function frozen(server: FlowServer, body: () => Promise<void>): Promise<void> {
  const restart = server.freezeClock();
  try {
    await body();
  } finally {
    restart();
  }
}

/** What the bearer guard answers for an access token: its status and, when refused, the error. */
async function guard(server: FlowServer, accessToken: string): Promise<{ status: number; error?: unknown }> {
  const res = await callUserinfo(server.issuer, { authorization: `Bearer ${accessToken}` });
  return res.status === 200 ? { status: 200 } : { status: res.status, error: res.json.error };
}

describe.each(STORE_KINDS)('one token state for refresh, introspection and the bearer guard (%s)', (kind) => {
  let server: FlowServer;
  beforeAll(async () => {
    server = await startFlowServer(kind);
  });
  afterAll(() => server?.stop());

  it('active: introspection says active, the refresh works and the guard serves the access token', async () => {
    const { flow, tokens } = await obtainTokens(server, { scope: SCOPE });
    expect(await isActive(server, flow, tokens.access_token)).toBe(true);
    expect(await guard(server, tokens.access_token)).toEqual({ status: 200 });
    expect(await isActive(server, flow, tokens.refresh_token!)).toBe(true);
    expect((await refreshRequest(server, flow, tokens.refresh_token!)).status).toBe(200);
  });

  it('rotated, successor unused, on the last millisecond of the grace window: active, and a replay gets the same successor', async () => {
    const { flow, tokens } = await obtainTokens(server, { scope: SCOPE });
    await frozen(server, async () => {
      const successor = await refreshTokens(server, flow, tokens.refresh_token!);
      server.advance(GRACE_MS);
      expect(await isActive(server, flow, tokens.refresh_token!)).toBe(true);
      const replay = await refreshRequest(server, flow, tokens.refresh_token!);
      expect({ status: replay.status, refresh: replay.json.refresh_token }, replay.text).toEqual({ status: 200, refresh: successor.refresh_token });
    });
  });

  it('rotated, one millisecond past the grace window: inactive, and a replay ends the family', async () => {
    const { flow, tokens } = await obtainTokens(server, { scope: SCOPE });
    await frozen(server, async () => {
      const successor = await refreshTokens(server, flow, tokens.refresh_token!);
      server.advance(GRACE_MS + 1);
      expect(await isActive(server, flow, tokens.refresh_token!)).toBe(false);
      expectBody(await refreshRequest(server, flow, tokens.refresh_token!), 400, alreadyUsed);
      expect(await isActive(server, flow, successor.refresh_token!)).toBe(false);
      expect(await guard(server, successor.access_token)).toEqual({ status: 401, error: 'invalid_token' });
    });
  });

  it('rotated, inside the grace window but its successor already used: inactive, and a replay ends the family', async () => {
    const { flow, tokens } = await obtainTokens(server, { scope: SCOPE });
    await frozen(server, async () => {
      const first = await refreshTokens(server, flow, tokens.refresh_token!);
      const second = await refreshTokens(server, flow, first.refresh_token!);
      // A replay would not get its successor back (that one is used), so the token is no longer honoured.
      expect(await isActive(server, flow, tokens.refresh_token!)).toBe(false);
      expectBody(await refreshRequest(server, flow, tokens.refresh_token!), 400, alreadyUsed);
      expect(await isActive(server, flow, second.refresh_token!)).toBe(false);
      expect(await guard(server, second.access_token)).toEqual({ status: 401, error: 'invalid_token' });
      expectBody(await refreshRequest(server, flow, second.refresh_token!), 400, revokedGrant);
    });
  });

  it('a reused token ends the family whatever else the refresh asks for, here a scope outside the grant', async () => {
    const { flow, tokens } = await obtainTokens(server, { scope: SCOPE });
    await frozen(server, async () => {
      const successor = await refreshTokens(server, flow, tokens.refresh_token!);
      server.advance(GRACE_MS + 1);
      expect(await isActive(server, flow, tokens.refresh_token!)).toBe(false);
      expectBody(await refreshRequest(server, flow, tokens.refresh_token!, { scope: 'courses:write' }), 400, alreadyUsed);
      expect(await isActive(server, flow, successor.refresh_token!)).toBe(false);
    });
  });

  it('revoked: inactive, the refresh is refused and the guard refuses its access token', async () => {
    const { flow, tokens } = await obtainTokens(server, { scope: SCOPE });
    expect((await revokeRequest(server, flow, tokens.refresh_token!)).status).toBe(200);
    expect(await isActive(server, flow, tokens.refresh_token!)).toBe(false);
    expectBody(await refreshRequest(server, flow, tokens.refresh_token!), 400, revokedGrant);
    expect(await isActive(server, flow, tokens.access_token)).toBe(false);
    expect(await guard(server, tokens.access_token)).toEqual({ status: 401, error: 'invalid_token' });
  });

  it('an access token on the last millisecond of its lifetime and at its expiry: introspection and the guard agree', async () => {
    await frozen(server, async () => {
      const { flow, tokens } = await obtainTokens(server, { scope: SCOPE });
      server.advance(ACCESS_TTL_MS - 1);
      expect(await isActive(server, flow, tokens.access_token)).toBe(true);
      expect(await guard(server, tokens.access_token)).toEqual({ status: 200 });
      server.advance(1);
      expect(await isActive(server, flow, tokens.access_token)).toBe(false);
      expect(await guard(server, tokens.access_token)).toEqual({ status: 401, error: 'invalid_token' });
    });
  });

  it('a refresh token on the last millisecond of its lifetime and at its expiry: introspection and the refresh grant agree', async () => {
    await frozen(server, async () => {
      const { flow, tokens } = await obtainTokens(server, { scope: SCOPE });
      const other = await obtainTokens(server, { scope: SCOPE, client: flow });
      server.advance(REFRESH_TTL_MS - 1);
      expect(await isActive(server, flow, tokens.refresh_token!)).toBe(true);
      expect((await refreshRequest(server, flow, tokens.refresh_token!)).status).toBe(200);
      server.advance(1);
      expect(await isActive(server, flow, other.tokens.refresh_token!)).toBe(false);
      expectBody(await refreshRequest(server, flow, other.tokens.refresh_token!), 400, {
        error: 'invalid_grant',
        error_description: 'The refresh token has expired',
      });
    });
  });
});

describe.each(STORE_KINDS)('one token state without a grace window, REFRESH_GRACE_SECONDS=0 (%s)', (kind) => {
  let strict: FlowServer;
  beforeAll(async () => {
    strict = await startFlowServer(kind, { REFRESH_GRACE_SECONDS: '0' });
  });
  afterAll(() => strict?.stop());

  it('a rotated token in the rotation’s own millisecond: inactive, and a replay ends the family', async () => {
    const { flow, tokens } = await obtainTokens(strict, { scope: SCOPE });
    await frozen(strict, async () => {
      const successor = await refreshTokens(strict, flow, tokens.refresh_token!);
      expect(await isActive(strict, flow, tokens.refresh_token!)).toBe(false);
      expectBody(await refreshRequest(strict, flow, tokens.refresh_token!), 400, alreadyUsed);
      expect(await isActive(strict, flow, successor.refresh_token!)).toBe(false);
    });
  });
});
