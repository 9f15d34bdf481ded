/**
 * Introspection (RFC 7662) at its edges: a rotated refresh token stays active
 * up to and including the last millisecond of the grace window, and a refresh
 * token is reported with its own token_type.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { obtainTokens, refreshTokens, startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { postForm } from '../helpers/oauth.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const GRACE_MS = 10_000; // REFRESH_GRACE_SECONDS's default, 10
const REFRESH_TTL_S = 30 * 24 * 3_600; // REFRESH_TOKEN_TTL_SECONDS's default

describe.each(STORE_KINDS)('introspection at its edges (%s)', (kind) => {
  let server: FlowServer;
  beforeAll(async () => {
    server = await startFlowServer(kind);
  });
  afterAll(() => server?.stop());

  const introspect = (clientId: string, token: string) => postForm(`${server.issuer}/api/oauth/introspect`, { token, client_id: clientId });

  it('reports a rotated refresh token active on the last millisecond of the grace window, and inactive one millisecond later', async () => {
    const { flow, tokens } = await obtainTokens(server);
    const restart = server.freezeClock();
    try {
      await refreshTokens(server, flow, tokens.refresh_token!);
      server.advance(GRACE_MS);
      // A replay at this instant still gets the successor, so the token is still honoured.
      const last = await introspect(flow.clientId, tokens.refresh_token!);
      expect({ status: last.status, active: last.json.active }, last.text).toEqual({ status: 200, active: true });
      server.advance(1);
      const after = await introspect(flow.clientId, tokens.refresh_token!);
      expect({ status: after.status, body: after.json }, after.text).toEqual({ status: 200, body: { active: false } });
    } finally {
      restart();
    }
  });

  it('names a refresh token refresh_token in token_type, and an access token Bearer', async () => {
    const { flow, tokens } = await obtainTokens(server, { scope: 'courses:read' });
    const refresh = await introspect(flow.clientId, tokens.refresh_token!);
    expect(refresh.status, refresh.text).toBe(200);
    const iat = refresh.json.iat as number;
    expect(refresh.json).toEqual({
      active: true,
      scope: 'courses:read',
      client_id: flow.clientId,
      sub: server.user.id,
      exp: iat + REFRESH_TTL_S,
      iat,
      auth_time: expect.any(Number),
      iss: server.issuer,
      token_type: 'refresh_token',
      aud: [server.issuer, `${server.issuer}/mcp`],
    });
    const access = await introspect(flow.clientId, tokens.access_token);
    expect({ status: access.status, tokenType: access.json.token_type }).toEqual({ status: 200, tokenType: 'Bearer' });
  });
});
