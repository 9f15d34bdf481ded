/**
 * The device grant through the client libraries' own device helpers:
 * oauth4webapi's request/process pairs and openid-client's
 * initiateDeviceAuthorization / pollDeviceAuthorizationGrant, each with
 * discovery, a person approving on the device page meanwhile, and the ID
 * token checked by the library.
 */
import * as oauth from 'oauth4webapi';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveDevice, DEVICE_GRANT } from '../helpers/device.ts';
import { register } from '../helpers/oauth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

describe.each(STORE_KINDS)('device grant with client libraries (%s)', (kind) => {
  let server: TestServer;
  let user: { email: string; password: string; id: string };
  beforeAll(async () => {
    server = await startTestServer(kind);
    user = await server.addUser('lecturer');
  });
  afterAll(() => server.close());

  it('oauth4webapi: discovery, device authorization, authorization_pending, approval, tokens with a verified ID token', async () => {
    const allowHttp = { [oauth.allowInsecureRequests]: true };
    const issuer = new URL(server.issuer);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...allowHttp }));
    expect(as.device_authorization_endpoint).toBe(`${server.issuer}/api/oauth/device_authorization`);
    const { json } = await register(server.issuer, { client_name: 'oauth4webapi device', grant_types: [DEVICE_GRANT, 'refresh_token'], token_endpoint_auth_method: 'none' });
    const client: oauth.Client = { client_id: json.client_id as string };
    const auth = oauth.None();

    const start = await oauth.processDeviceAuthorizationResponse(as, client, await oauth.deviceAuthorizationRequest(as, client, auth, { scope: 'openid courses:read' }, allowHttp));
    expect(start.interval).toBe(5);
    const pending = await oauth.processDeviceCodeResponse(as, client, await oauth.deviceCodeGrantRequest(as, client, auth, start.device_code, allowHttp)).catch((e: unknown) => e);
    expect(pending).toBeInstanceOf(oauth.ResponseBodyError);
    expect((pending as oauth.ResponseBodyError).error).toBe('authorization_pending');

    await approveDevice(server.issuer, start as never, user);
    await new Promise((r) => setTimeout(r, start.interval! * 1000));
    const tokens = await oauth.processDeviceCodeResponse(as, client, await oauth.deviceCodeGrantRequest(as, client, auth, start.device_code, allowHttp));
    expect(tokens.scope).toBe('openid courses:read');
    expect(tokens.refresh_token).toMatch(/^lyc_rt_/);
    const claims = oauth.getValidatedIdTokenClaims(tokens)!;
    expect(claims).toMatchObject({ iss: server.issuer, sub: user.id, aud: client.client_id });
  }, 20_000);

  it('openid-client: a confidential client polls with pollDeviceAuthorizationGrant until the person approves', async () => {
    const { json } = await register(server.issuer, { client_name: 'openid-client device', grant_types: [DEVICE_GRANT, 'refresh_token'], token_endpoint_auth_method: 'client_secret_post' });
    const secret = json.client_secret as string;
    const config = await oidc.discovery(new URL(server.issuer), json.client_id as string, secret, oidc.ClientSecretPost(secret), { execute: [oidc.allowInsecureRequests] });
    const start = await oidc.initiateDeviceAuthorization(config, { scope: 'openid profile courses:read', resource: `${server.issuer}/mcp` });
    expect(start.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    // The person approves while the library polls.
    const approval = new Promise((r) => setTimeout(r, 1000)).then(() => approveDevice(server.issuer, start as never, user));
    const tokens = await oidc.pollDeviceAuthorizationGrant(config, start, { resource: `${server.issuer}/mcp` });
    await approval;
    expect(tokens.scope).toBe('openid profile courses:read');
    expect(tokens.claims()).toMatchObject({ iss: server.issuer, sub: user.id, aud: json.client_id });
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.access_token).toMatch(/^lyc_at_/);
  }, 30_000);
});
