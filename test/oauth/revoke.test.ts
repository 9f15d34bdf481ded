import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256 } from '../../src/oauth/issued-tokens/secrets.ts';
import {
  expectOAuthError,
  isActive,
  obtainTokens,
  refreshRequest,
  refreshTokens,
  registerClient,
  revokeRequest,
  startFlowServer,
  type CodeFlow,
  type FlowOptions,
  type FlowServer,
  type FormResponse,
  type TokenSet,
} from '../helpers/flow.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const randomCredential = (prefix: string) => prefix + randomBytes(32).toString('base64url');

/** A revocation request that must be refused; the token it names must stay live. */
interface RefusedRevocation {
  why: string;
  status: number;
  error: string;
  flow?: FlowOptions;
  send(server: FlowServer, flow: CodeFlow, tokens: TokenSet): Promise<FormResponse>;
}

const REFUSED: RefusedRevocation[] = [
  {
    why: 'token is missing',
    status: 400,
    error: 'invalid_request',
    send: (s, f) => revokeRequest(s, f, '', { token: undefined }),
  },
  {
    why: 'client_id is missing, so the client is not identified (RFC 6749 §5.2: no client authentication included)',
    status: 401,
    error: 'invalid_client',
    send: (s, f, t) => revokeRequest(s, f, t.refresh_token!, { client_id: undefined }),
  },
  {
    why: 'the client_id is not registered',
    status: 401,
    error: 'invalid_client',
    send: (s, f, t) => revokeRequest(s, f, t.refresh_token!, { client_id: randomCredential('lyc_client_') }),
  },
  {
    why: 'token_type_hint=foo is not a token type this server knows (RFC 7009 §2.2.1)',
    status: 400,
    error: 'unsupported_token_type',
    send: (s, f, t) => revokeRequest(s, f, t.refresh_token!, { token_type_hint: 'foo' }),
  },
  {
    why: 'the token was issued to another client (RFC 7009 §2.1: the request is refused)',
    status: 400,
    error: 'invalid_request',
    send: async (s, _f, t) => revokeRequest(s, await registerClient(s.issuer), t.refresh_token!),
  },
  {
    why: 'the access token was issued to another client',
    status: 400,
    error: 'invalid_request',
    send: async (s, _f, t) => revokeRequest(s, await registerClient(s.issuer), t.access_token),
  },
  {
    why: 'a confidential client sends no client_secret',
    status: 401,
    error: 'invalid_client',
    flow: { confidential: true },
    send: (s, f, t) => revokeRequest(s, f, t.refresh_token!, { client_secret: undefined }),
  },
  {
    why: 'a confidential client sends a wrong client_secret',
    status: 401,
    error: 'invalid_client',
    flow: { confidential: true },
    send: (s, f, t) => revokeRequest(s, f, t.refresh_token!, { client_secret: randomCredential('lyc_cs_') }),
  },
  {
    why: 'a public client sends a client_secret',
    status: 401,
    error: 'invalid_client',
    send: (s, f, t) => revokeRequest(s, f, t.refresh_token!, { client_secret: randomCredential('lyc_cs_') }),
  },
];

describe.each(STORE_KINDS)('revocation endpoint (%s)', (kind) => {
  let server: FlowServer;
  const stored = (token: string) => server.deps.store.tokens.find(sha256(token));
  const revokedAt = async (token: string) => (await stored(token))?.revokedAt;

  beforeAll(async () => {
    server = await startFlowServer(kind);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('revokes an access token with 200 and only that token: the refresh token of the grant still refreshes', async () => {
    const { flow, tokens } = await obtainTokens(server);
    const res = await revokeRequest(server, flow, tokens.access_token);
    expect(res.status, res.text).toBe(200);
    expect(await revokedAt(tokens.access_token)).toEqual(expect.any(Number));
    expect(await revokedAt(tokens.refresh_token!)).toBeNull();
    expect(await isActive(server, flow, tokens.access_token)).toBe(false);
    expect(await isActive(server, flow, tokens.refresh_token!)).toBe(true);

    const refreshed = await refreshTokens(server, flow, tokens.refresh_token!);
    expect(await revokedAt(refreshed.access_token)).toBeNull();
    // The new pair does not bring the revoked access token back.
    expect(await revokedAt(tokens.access_token)).toEqual(expect.any(Number));
  });

  it('revokes a refresh token with 200 together with its family, including the access token issued with it', async () => {
    const { flow, tokens } = await obtainTokens(server);
    const res = await revokeRequest(server, flow, tokens.refresh_token!, { token_type_hint: 'refresh_token' });
    expect(res.status, res.text).toBe(200);
    expect(await revokedAt(tokens.refresh_token!)).toEqual(expect.any(Number));
    expect(await revokedAt(tokens.access_token)).toEqual(expect.any(Number));
    expect(await isActive(server, flow, tokens.access_token)).toBe(false);
    expectOAuthError(await refreshRequest(server, flow, tokens.refresh_token!), 400, 'invalid_grant');
  });

  it('revokes, with the current refresh token, the tokens of earlier rotations of the same grant', async () => {
    const { flow, tokens } = await obtainTokens(server);
    const rotated = await refreshTokens(server, flow, tokens.refresh_token!);
    expect((await revokeRequest(server, flow, rotated.refresh_token!)).status).toBe(200);
    for (const token of [tokens.access_token, tokens.refresh_token!, rotated.access_token, rotated.refresh_token!]) {
      expect(await revokedAt(token)).toEqual(expect.any(Number));
    }
    expectOAuthError(await refreshRequest(server, flow, rotated.refresh_token!), 400, 'invalid_grant');
  });

  it('revokes a refresh token sent with token_type_hint=access_token (RFC 7009 §2.1: the search extends to every type)', async () => {
    const { flow, tokens } = await obtainTokens(server);
    const res = await revokeRequest(server, flow, tokens.refresh_token!, { token_type_hint: 'access_token' });
    expect(res.status, res.text).toBe(200);
    expect(await revokedAt(tokens.refresh_token!)).toEqual(expect.any(Number));
  });

  it('answers 200 to a token it never issued (RFC 7009 §2.2: invalid tokens cause no error)', async () => {
    const client = await registerClient(server.issuer);
    const res = await revokeRequest(server, client, randomCredential('lyc_at_'));
    expect(res.status, res.text).toBe(200);
  });

  it('answers 200 to a token revoked before', async () => {
    const { flow, tokens } = await obtainTokens(server);
    expect((await revokeRequest(server, flow, tokens.refresh_token!)).status).toBe(200);
    expect((await revokeRequest(server, flow, tokens.refresh_token!)).status).toBe(200);
  });

  it('revokes for a confidential client that sends its client_secret', async () => {
    const { flow, tokens } = await obtainTokens(server, { confidential: true });
    const res = await revokeRequest(server, flow, tokens.refresh_token!);
    expect(res.status, res.text).toBe(200);
    expect(await revokedAt(tokens.refresh_token!)).toEqual(expect.any(Number));
  });

  for (const { why, status, error, flow, send } of REFUSED) {
    it(`${status} ${error} and nothing revoked when ${why}`, async () => {
      const { flow: f, tokens } = await obtainTokens(server, flow);
      expectOAuthError(await send(server, f, tokens), status, error);
      expect(await revokedAt(tokens.access_token)).toBeNull();
      expect(await revokedAt(tokens.refresh_token!)).toBeNull();
      // The rightful client keeps using its grant.
      await refreshTokens(server, f, tokens.refresh_token!);
    });
  }

  describe('CORS (browser-based clients)', () => {
    const ORIGINS = ['https://app.example', 'http://localhost:5173', 'null'];
    const PATHS = ['/api/oauth/token', '/api/oauth/revoke'];

    for (const path of PATHS) {
      for (const origin of ORIGINS) {
        it(`allows a preflight to ${path} from origin ${origin}`, async () => {
          const res = await fetch(`${server.issuer}${path}`, {
            method: 'OPTIONS',
            headers: {
              origin,
              'access-control-request-method': 'POST',
              'access-control-request-headers': 'content-type',
            },
          });
          expect(res.status).toBeGreaterThanOrEqual(200);
          expect(res.status).toBeLessThan(300);
          expect(res.headers.get('access-control-allow-origin')).toBe('*');
          expect(res.headers.get('access-control-allow-methods') ?? '').toMatch(/\bPOST\b/);
          expect((res.headers.get('access-control-allow-headers') ?? '').toLowerCase()).toMatch(/\bcontent-type\b/);
        });
      }
    }

    it('lets a cross-origin page read the revocation response', async () => {
      const { flow, tokens } = await obtainTokens(server);
      const res = await fetch(server.revocationEndpoint, {
        method: 'POST',
        headers: { origin: 'https://app.example', 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: tokens.access_token, client_id: flow.clientId }).toString(),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
    });
  });
});
