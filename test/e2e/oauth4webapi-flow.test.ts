import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { UserAgent } from '../helpers/user-agent.ts';

describe.each(STORE_KINDS)('oauth4webapi against Lyceum (%s)', (kind) => {
  let server: TestServer;
  let as: oauth.AuthorizationServer;
  const allowHttp = { [oauth.allowInsecureRequests]: true };

  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  it('discovers nothing yet but completes register → authorize → token → refresh → revoke', async () => {
    as = {
      issuer: server.issuer,
      authorization_endpoint: `${server.issuer}/oauth/authorize`,
      token_endpoint: `${server.issuer}/api/oauth/token`,
      revocation_endpoint: `${server.issuer}/api/oauth/revoke`,
      authorization_response_iss_parameter_supported: true,
    };
    const user = await server.addUser('owner');
    const reg = await fetch(`${server.issuer}/api/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'oauth4webapi CLI', redirect_uris: ['http://127.0.0.1/cb'], token_endpoint_auth_method: 'none' }),
    });
    expect(reg.status).toBe(201);
    const client: oauth.Client = { client_id: ((await reg.json()) as { client_id: string }).client_id };
    const clientAuth = oauth.None();

    const verifier = oauth.generateRandomCodeVerifier();
    const challenge = await oauth.calculatePKCECodeChallenge(verifier);
    const state = oauth.generateRandomState();
    const redirectUri = 'http://127.0.0.1:54321/cb';
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: client.client_id,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'courses:read students:read',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state,
    }).toString();

    const callback = await new UserAgent(server.issuer).authorize(url.href, user);
    expect(callback.origin).toBe('http://127.0.0.1:54321');
    expect(callback.searchParams.get('iss')).toBe(server.issuer);

    const params = oauth.validateAuthResponse(as, client, callback, state);
    const response = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, redirectUri, verifier, allowHttp);
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.scope).toBe('courses:read students:read');
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.access_token).toMatch(/^lyc_at_/);
    expect(tokens.refresh_token).toMatch(/^lyc_rt_/);

    const refreshed = await oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token!, allowHttp));
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(refreshed.scope).toBe('courses:read students:read');

    const revoked = await oauth.revocationRequest(as, client, clientAuth, refreshed.refresh_token!, allowHttp);
    await oauth.processRevocationResponse(revoked);
    const again = await oauth.refreshTokenGrantRequest(as, client, clientAuth, refreshed.refresh_token!, allowHttp);
    await expect(oauth.processRefreshTokenResponse(as, client, again)).rejects.toMatchObject({ error: 'invalid_grant' });
  });
});
