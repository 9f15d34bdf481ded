/**
 * The refresh grant at its edges, stated by hand: the last millisecond of the
 * grace window, the lifetime a replay inside it reports, and the scopes an
 * invalid_scope answer names. Each rule is one a client relies on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectBody, obtainTokens, refreshRequest, refreshTokens, startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

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
