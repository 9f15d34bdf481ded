import { createHash } from 'node:crypto';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { register } from '../helpers/oauth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { UserAgent } from '../helpers/user-agent.ts';

describe.each(STORE_KINDS)('openid-client against Lyceum (%s)', (kind) => {
  let server: TestServer;
  let user: { email: string; password: string; id: string };

  beforeAll(async () => {
    server = await startTestServer(kind);
    user = await server.addUser('lecturer');
  });
  afterAll(() => server.close());

  async function confidentialConfig(extra: Record<string, unknown> = {}) {
    const { status, json } = await register(server.issuer, {
      client_name: 'openid-client app',
      redirect_uris: ['http://127.0.0.1/cb'],
      token_endpoint_auth_method: 'client_secret_post',
      ...extra,
    });
    expect(status).toBe(201);
    const secret = json.client_secret as string;
    return oidc.discovery(new URL(server.issuer), json.client_id as string, secret, oidc.ClientSecretPost(secret), {
      execute: [oidc.allowInsecureRequests],
    });
  }

  async function signIn(config: oidc.Configuration, scope: string, redirectUri = 'http://127.0.0.1:41234/cb') {
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const openid = scope.split(' ').includes('openid');
    const nonce = openid ? oidc.randomNonce() : undefined;
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      ...(nonce ? { nonce } : {}),
    });
    const callback = await new UserAgent(server.issuer).authorize(url.href, user);
    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce });
    return { tokens, nonce };
  }

  it('discovers, signs in with nonce, validates the ID token and reads UserInfo with email', async () => {
    const config = await confidentialConfig();
    const meta = config.serverMetadata();
    expect(meta.issuer).toBe(server.issuer);
    expect(meta.code_challenge_methods_supported).toEqual(['S256']);

    const { tokens, nonce } = await signIn(config, 'openid profile email courses:read');
    const claims = tokens.claims()!;
    expect(claims.iss).toBe(server.issuer);
    expect(claims.aud).toBe(config.clientMetadata().client_id);
    expect(claims.sub).toBe(user.id);
    expect(claims.sub).not.toContain('@');
    expect(claims.nonce).toBe(nonce);
    expect(typeof claims.auth_time).toBe('number');
    // OIDC Core §3.1.3.6: the left half of the access token's SHA-256, base64url.
    expect(claims.at_hash).toBe(createHash('sha256').update(tokens.access_token).digest().subarray(0, 16).toString('base64url'));
    expect(decodeProtectedHeader(tokens.id_token!).alg).toBe('RS256');

    // The signature, checked against the published JWKS.
    const jwks = createRemoteJWKSet(new URL(meta.jwks_uri!));
    await jwtVerify(tokens.id_token!, jwks, { issuer: server.issuer, audience: claims.aud as string });

    const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
    expect(info).toMatchObject({ sub: user.id, email: user.email, email_verified: false, name: 'Test lecturer', school_role: 'lecturer' });
    expect(typeof info.updated_at).toBe('number');
  });

  it('leaves email out of UserInfo when the email scope was not granted', async () => {
    const config = await confidentialConfig();
    const { tokens } = await signIn(config, 'openid profile');
    const info = await oidc.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub);
    expect(info.email).toBeUndefined();
    expect(info.email_verified).toBeUndefined();
    expect(info.name).toBe('Test lecturer');
  });

  it('signs with ES256 for a client that registered id_token_signed_response_alg ES256', async () => {
    const config = await confidentialConfig({ id_token_signed_response_alg: 'ES256' });
    const { tokens } = await signIn(config, 'openid');
    expect(decodeProtectedHeader(tokens.id_token!).alg).toBe('ES256');
    const jwks = createRemoteJWKSet(new URL(`${server.issuer}/.well-known/jwks.json`));
    await jwtVerify(tokens.id_token!, jwks, { issuer: server.issuer });
  });

  it('refreshes through openid-client and keeps the granted scope', async () => {
    const config = await confidentialConfig();
    const { tokens } = await signIn(config, 'openid courses:read');
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.scope).toBe('openid courses:read');
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
  });

  it('issues no ID token without openid', async () => {
    const config = await confidentialConfig();
    const { tokens } = await signIn(config, 'courses:read');
    expect(tokens.id_token).toBeUndefined();
  });
});
