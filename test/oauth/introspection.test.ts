import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectOAuthError,
  obtainTokens,
  refreshTokens,
  revokeRequest,
  startFlowServer,
  type FlowOptions,
  type FlowServer,
  type FormResponse,
  type Overrides,
  type RegisteredClient,
  type TokenSet,
} from '../helpers/flow.ts';
import { postForm } from '../helpers/oauth.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const ACCESS_TTL_S = 3600;
const REFRESH_GRACE_S = 10;
const SCOPE = 'openid profile courses:read';

describe.each(STORE_KINDS)('POST /api/oauth/introspect, RFC 7662 (%s)', (kind) => {
  let server: FlowServer;
  let endpoint: string;

  beforeAll(async () => {
    server = await startFlowServer(kind);
    endpoint = `${server.issuer}/api/oauth/introspect`;
  });
  afterAll(() => server.stop());

  async function issue(opts: FlowOptions = {}, overrides: Overrides = {}): Promise<{ client: RegisteredClient; tokens: TokenSet }> {
    const { flow, tokens } = await obtainTokens(server, { scope: SCOPE, ...opts }, overrides);
    return { client: { clientId: flow.clientId, clientSecret: flow.clientSecret }, tokens };
  }

  /** Introspection authenticated as `client` (client_secret_post when it has a secret). */
  function introspect(client: RegisteredClient, token: string | undefined, extra: Record<string, string> = {}): Promise<FormResponse> {
    const fields: Record<string, string> = { client_id: client.clientId, ...extra };
    if (client.clientSecret !== undefined) fields.client_secret = client.clientSecret;
    if (token !== undefined) fields.token = token;
    return postForm(endpoint, fields);
  }

  function expectInactive(res: FormResponse) {
    expect({ status: res.status, body: res.json }, res.text).toEqual({ status: 200, body: { active: false } });
    expect(res.headers.get('cache-control')).toMatch(/no-store/);
  }

  const nowSeconds = () => Math.floor(server.deps.now() / 1000);

  describe('a confidential client (client_secret_post) introspecting its own tokens', () => {
    it('sees its active access token with every RFC 7662 §2.2 member; an unbound token names both resources as aud', async () => {
      const { client, tokens } = await issue({ confidential: true });
      expect(client.clientSecret).toBeDefined();
      const res = await introspect(client, tokens.access_token);
      expect(res.status, res.text).toBe(200);
      expect(res.json).toMatchObject({
        active: true,
        scope: SCOPE,
        client_id: client.clientId,
        sub: server.user.id,
        iss: server.issuer,
        token_type: 'Bearer',
        aud: [server.issuer, `${server.issuer}/mcp`],
      });
      const { exp, iat } = res.json as { exp: unknown; iat: unknown };
      expect(Number.isInteger(exp) && Number.isInteger(iat)).toBe(true);
      expect(Math.abs((iat as number) - nowSeconds())).toBeLessThanOrEqual(5);
      expect((exp as number) - (iat as number)).toBe(ACCESS_TTL_S);
      expect(res.headers.get('cache-control')).toMatch(/no-store/);
    });

    it('sees the resource its access token is bound to as aud', async () => {
      const { client, tokens } = await issue({ confidential: true, resource: `${server.issuer}/mcp` });
      const res = await introspect(client, tokens.access_token);
      expect(res.json).toMatchObject({ active: true, aud: `${server.issuer}/mcp` });
    });

    it('sees the API resource as aud when the binding was asked for at the token endpoint', async () => {
      const { client, tokens } = await issue({ confidential: true }, { resource: server.issuer });
      const res = await introspect(client, tokens.access_token);
      expect(res.json).toMatchObject({ active: true, aud: server.issuer });
    });

    it('sees its refresh token as active', async () => {
      const { client, tokens } = await issue({ confidential: true });
      const res = await introspect(client, tokens.refresh_token!);
      expect(res.status, res.text).toBe(200);
      expect(res.json).toMatchObject({ active: true, scope: SCOPE, client_id: client.clientId, sub: server.user.id, iss: server.issuer });
      expect(res.headers.get('cache-control')).toMatch(/no-store/);
    });

    it('sees a token_type_hint as a hint only: an access token sent with hint refresh_token is still found', async () => {
      const { client, tokens } = await issue({ confidential: true });
      const res = await introspect(client, tokens.access_token, { token_type_hint: 'refresh_token' });
      expect(res.json).toMatchObject({ active: true, token_type: 'Bearer' });
    });

    it('is refused with 401 invalid_client when the secret is wrong', async () => {
      const { client, tokens } = await issue({ confidential: true });
      const res = await introspect({ clientId: client.clientId, clientSecret: `${client.clientSecret}x` }, tokens.access_token);
      expectOAuthError(res, 401, 'invalid_client');
      expect(res.headers.get('cache-control')).toMatch(/no-store/);
    });

    it('is refused with 401 invalid_client when the secret is missing', async () => {
      const { client, tokens } = await issue({ confidential: true });
      const res = await introspect({ clientId: client.clientId }, tokens.access_token);
      expectOAuthError(res, 401, 'invalid_client');
    });
  });

  describe('a public client (client_id only)', () => {
    it('sees its own active access token', async () => {
      const { client, tokens } = await issue();
      expect(client.clientSecret).toBeUndefined();
      const res = await introspect(client, tokens.access_token);
      expect(res.status, res.text).toBe(200);
      expect(res.json).toMatchObject({
        active: true,
        scope: SCOPE,
        client_id: client.clientId,
        sub: server.user.id,
        iss: server.issuer,
        token_type: 'Bearer',
        aud: [server.issuer, `${server.issuer}/mcp`],
      });
    });

    it('is refused with 401 invalid_client for an unknown client_id', async () => {
      const { tokens } = await issue();
      expectOAuthError(await introspect({ clientId: 'lyc_client_unknown' }, tokens.access_token), 401, 'invalid_client');
    });
  });

  describe('tokens that are not active answer exactly {"active": false} (RFC 7662 §2.2)', () => {
    it('another client’s access and refresh tokens', async () => {
      const owner = await issue();
      const other = await issue({ confidential: true });
      expectInactive(await introspect(other.client, owner.tokens.access_token));
      expectInactive(await introspect(other.client, owner.tokens.refresh_token!));
      expectInactive(await introspect(owner.client, other.tokens.access_token));
    });

    it('a revoked access token', async () => {
      const { client, tokens } = await issue({ confidential: true });
      expect((await revokeRequest(server, client, tokens.access_token)).status).toBe(200);
      expectInactive(await introspect(client, tokens.access_token));
    });

    it('a revoked refresh token and the access token of its family', async () => {
      const { client, tokens } = await issue();
      expect((await revokeRequest(server, client, tokens.refresh_token!)).status).toBe(200);
      expectInactive(await introspect(client, tokens.refresh_token!));
      expectInactive(await introspect(client, tokens.access_token));
    });

    it('an expired access token, while its refresh token stays active', async () => {
      const { client, tokens } = await issue({ confidential: true });
      server.advance((ACCESS_TTL_S + 1) * 1000);
      expectInactive(await introspect(client, tokens.access_token));
      expect((await introspect(client, tokens.refresh_token!)).json).toMatchObject({ active: true });
    });

    it('a refresh token rotated away more than the grace window ago', async () => {
      const { client, tokens } = await issue();
      const successor = await refreshTokens(server, client, tokens.refresh_token!);
      server.advance((REFRESH_GRACE_S + 1) * 1000);
      expectInactive(await introspect(client, tokens.refresh_token!));
      expect((await introspect(client, successor.refresh_token!)).json).toMatchObject({ active: true });
    });

    it('a token that was never issued', async () => {
      const { client } = await issue({ confidential: true });
      expectInactive(await introspect(client, `lyc_at_${'A'.repeat(43)}`));
      expectInactive(await introspect(client, 'not-a-token'));
    });
  });

  it('a request without token is 400 invalid_request, with Cache-Control no-store', async () => {
    const { client } = await issue({ confidential: true });
    const res = await introspect(client, undefined);
    expectOAuthError(res, 400, 'invalid_request');
    expect(res.headers.get('cache-control')).toMatch(/no-store/);
  });
});

/**
 * Introspection (RFC 7662) at its edges: a rotated refresh token stays active
 * up to and including the last millisecond of the grace window, and a refresh
 * token is reported with its own token_type.
 */
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
