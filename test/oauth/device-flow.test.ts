/**
 * The device authorization grant (RFC 8628) over real HTTP on every store:
 * registration without redirect URIs, the device authorization response,
 * polling (authorization_pending, slow_down, access_denied, expired_token),
 * the person's page, and the tokens it ends in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJson } from '../helpers/bearer.ts';
import { databaseDump, expectOAuthError, startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { register, registerPublicClient } from '../helpers/oauth.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { startTestServer } from '../helpers/server.ts';
import { approveDevice, DEVICE_GRANT, openDevicePage, pollToken, registerDeviceClient, requestDeviceAuthorization, startDevice, submitCode } from '../helpers/device.ts';
import { asPage, UserAgent } from '../helpers/user-agent.ts';

const USER_CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;

describe.each(STORE_KINDS)('device authorization grant (%s)', (kind) => {
  let server: FlowServer;
  beforeAll(async () => {
    server = await startFlowServer(kind);
  });
  afterAll(() => server?.stop());

  describe('registration', () => {
    it('a device client needs no redirect URI, gets no response type and never the code grant', async () => {
      const { status, json } = await register(server.issuer, { client_name: 'Remote agent', grant_types: [DEVICE_GRANT, 'refresh_token'], token_endpoint_auth_method: 'none' });
      expect(status).toBe(201);
      expect(json).toMatchObject({ grant_types: ['refresh_token', DEVICE_GRANT], response_types: [], redirect_uris: [], application_type: 'native' });
      // The authorization endpoint does not serve it: no redirect URI can match.
      const res = await fetch(`${server.issuer}/oauth/authorize?response_type=code&client_id=${json.client_id as string}&redirect_uri=http://127.0.0.1:5000/cb`, { redirect: 'manual' });
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
    });

    it('what mcp-remote --device-code sends (a loopback redirect URI, response_types ["code"]) is kept under the loopback rule, without the code grant', async () => {
      const redirect = 'http://localhost:40123/oauth/callback';
      const { status, json } = await register(server.issuer, {
        client_name: 'mcp-remote',
        redirect_uris: [redirect],
        grant_types: [DEVICE_GRANT, 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      });
      expect(status).toBe(201);
      expect(json).toMatchObject({ redirect_uris: [redirect], grant_types: ['refresh_token', DEVICE_GRANT], response_types: [] });
      // The loopback rule still holds for every redirect URI.
      const https = await register(server.issuer, { redirect_uris: ['https://attacker.example/cb'], grant_types: [DEVICE_GRANT] });
      expect(https.status).toBe(400);
      expect(https.json.error).toBe('invalid_redirect_uri');
    });

    it('a client must register a way in, and the code grant still needs redirect URIs', async () => {
      const none = await register(server.issuer, { grant_types: ['refresh_token'] });
      expect(none).toMatchObject({ status: 400, json: { error: 'invalid_client_metadata' } });
      expect(none.json.error_description).toContain(DEVICE_GRANT);
      const codeWithout = await register(server.issuer, { grant_types: ['authorization_code', DEVICE_GRANT] });
      expect(codeWithout).toMatchObject({ status: 400, json: { error: 'invalid_redirect_uri' } });
      const wrongResponse = await register(server.issuer, { grant_types: [DEVICE_GRANT], response_types: ['token'] });
      expect(wrongResponse).toMatchObject({ status: 400, json: { error: 'invalid_client_metadata' } });
      // A registration that names no grant keeps the browser client's default: no device grant.
      const plain = await register(server.issuer, { redirect_uris: ['http://127.0.0.1/cb'] });
      expect(plain.json.grant_types).toEqual(['authorization_code', 'refresh_token']);
    });

    it('discovery advertises the endpoint and the grant', async () => {
      for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
        const meta = (await (await fetch(server.issuer + path)).json()) as Record<string, unknown>;
        expect(meta.device_authorization_endpoint).toBe(`${server.issuer}/api/oauth/device_authorization`);
        expect(meta.grant_types_supported).toContain(DEVICE_GRANT);
      }
    });
  });

  describe('device authorization endpoint', () => {
    it('answers RFC 8628 §3.2 with a readable user code, the page and its complete link, uncached; nothing readable is stored', async () => {
      const client = await registerDeviceClient(server.issuer);
      const res = await requestDeviceAuthorization(server.issuer, client, { scope: 'courses:read' });
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('pragma')).toBe('no-cache');
      const start = res.json as Record<string, unknown>;
      expect(start).toEqual({
        device_code: expect.stringMatching(/^lyc_dc_[\w-]{43}$/),
        user_code: expect.stringMatching(USER_CODE),
        verification_uri: `${server.issuer}/oauth/device`,
        verification_uri_complete: `${server.issuer}/oauth/device?user_code=${start.user_code as string}`,
        expires_in: 600,
        interval: 5,
      });
      const dump = await databaseDump(server.databaseUrl);
      expect(dump).not.toContain(start.device_code);
      expect(dump).not.toContain((start.user_code as string).replace('-', ''));
      expect(dump).not.toContain(start.user_code);
    });

    it('refuses, RFC 6749 §5.2-shaped: a client without the grant, unknown clients, bad scopes and resources, a JSON body', async () => {
      const codeClient = await registerPublicClient(server.issuer);
      expectOAuthError(await requestDeviceAuthorization(server.issuer, { clientId: codeClient }, { scope: 'courses:read' }), 400, 'unauthorized_client');
      expectOAuthError(await requestDeviceAuthorization(server.issuer, { clientId: 'lyc_client_nope' }), 401, 'invalid_client');
      const client = await registerDeviceClient(server.issuer);
      expectOAuthError(await requestDeviceAuthorization(server.issuer, client, { scope: 'courses:read bogus' }), 400, 'invalid_scope');
      expectOAuthError(await requestDeviceAuthorization(server.issuer, client, {}), 400, 'invalid_scope');
      expectOAuthError(await requestDeviceAuthorization(server.issuer, client, { scope: 'courses:read', resource: 'https://elsewhere.example/' }), 400, 'invalid_target');
      const json = await readJson(
        await fetch(`${server.issuer}/api/oauth/device_authorization`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_id: client.clientId }) }),
      );
      expectOAuthError(json, 400, 'invalid_request');
      const confidential = await registerDeviceClient(server.issuer, { confidential: true });
      expectOAuthError(await requestDeviceAuthorization(server.issuer, { clientId: confidential.clientId }, { scope: 'courses:read' }), 401, 'invalid_client');
      expect((await requestDeviceAuthorization(server.issuer, confidential, { scope: 'courses:read' })).status).toBe(200);
    });
  });

  describe('polling', () => {
    it('authorization_pending, then slow_down for an early poll, with the interval 5 s longer from then on', async () => {
      const client = await registerDeviceClient(server.issuer);
      const start = await startDevice(server.issuer, client);
      const thaw = server.freezeClock();
      try {
        expectOAuthError(await pollToken(server.issuer, client, start.device_code), 400, 'authorization_pending');
        // Up to a second early still counts as on time.
        server.advance(4000);
        expectOAuthError(await pollToken(server.issuer, client, start.device_code), 400, 'authorization_pending');
        server.advance(1000);
        const early = await pollToken(server.issuer, client, start.device_code);
        expectOAuthError(early, 400, 'slow_down');
        expect(early.json.error_description).toContain('10 seconds');
        // Five seconds later is still too soon now: the interval is ten.
        server.advance(5000);
        expectOAuthError(await pollToken(server.issuer, client, start.device_code), 400, 'slow_down');
        // A client that honours the new interval (15 s now) is answered as usual.
        server.advance(15_000);
        expectOAuthError(await pollToken(server.issuer, client, start.device_code), 400, 'authorization_pending');
      } finally {
        thaw();
      }
    });

    it('after approval on the page: tokens once, for what the person could grant, with refresh and an ID token', async () => {
      const client = await registerDeviceClient(server.issuer);
      const start = await startDevice(server.issuer, client, { scope: 'openid courses:read students:read' });
      const done = await approveDevice(server.issuer, start, server.user);
      expect(done.status).toBe(200);
      expect(done.html).toContain('Device connected');
      const res = await pollToken(server.issuer, client, start.device_code);
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.json).toMatchObject({ token_type: 'Bearer', scope: 'openid courses:read students:read', refresh_token: expect.any(String), id_token: expect.any(String) });
      const me = await readJson(await fetch(`${server.issuer}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${res.json.access_token as string}` } }));
      expect(me.json.sub).toBe(server.user.id);
      // Redeemed once: the same device code gives nothing more.
      expectOAuthError(await pollToken(server.issuer, client, start.device_code), 400, 'invalid_grant');
      // The refresh token works like the code flow's.
      const refreshed = await pollToken(server.issuer, client, '', { grant_type: 'refresh_token', refresh_token: res.json.refresh_token as string, device_code: '' });
      expect(refreshed.status, refreshed.text).toBe(200);
    });

    it('a student grants only what the role allows; another client cannot redeem the code', async () => {
      const student = await server.addUser('student');
      const client = await registerDeviceClient(server.issuer);
      const start = await startDevice(server.issuer, client, { scope: 'openid profile students:read' });
      await approveDevice(server.issuer, start, student);
      const other = await registerDeviceClient(server.issuer);
      expectOAuthError(await pollToken(server.issuer, other, start.device_code), 400, 'invalid_grant');
      const res = await pollToken(server.issuer, client, start.device_code);
      expect(res.json.scope).toBe('openid profile');
    });

    it('ten concurrent polls of an approved code: one gets tokens, the rest invalid_grant', async () => {
      const client = await registerDeviceClient(server.issuer);
      const start = await startDevice(server.issuer, client);
      await approveDevice(server.issuer, start, server.user);
      const answers = await Promise.all(Array.from({ length: 10 }, () => pollToken(server.issuer, client, start.device_code)));
      expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
      for (const a of answers.filter((x) => x.status !== 200)) expectOAuthError(a, 400, 'invalid_grant');
    });

    it('denied on the page: access_denied', async () => {
      const client = await registerDeviceClient(server.issuer);
      const start = await startDevice(server.issuer, client);
      const done = await approveDevice(server.issuer, start, server.user, 'deny');
      expect(done.html).toContain('Device not connected');
      expectOAuthError(await pollToken(server.issuer, client, start.device_code), 400, 'access_denied');
    });

    it('at expires_in: expired_token, and the page no longer takes the code', async () => {
      const client = await registerDeviceClient(server.issuer);
      const thaw = server.freezeClock();
      const start = await startDevice(server.issuer, client);
      server.advance(600_000 - 1);
      expectOAuthError(await pollToken(server.issuer, client, start.device_code), 400, 'authorization_pending');
      server.advance(1);
      expectOAuthError(await pollToken(server.issuer, client, start.device_code), 400, 'expired_token');
      thaw();
      const agent = new UserAgent(server.issuer);
      const page = await submitCode(agent, await openDevicePage(agent, start.verification_uri_complete, server.user), start.user_code);
      expect(page.status).toBe(400);
      expect(page.html).toContain('not valid, or it has expired');
    });

    it('the resource asked for binds the token; a different one at the token endpoint is invalid_target', async () => {
      const client = await registerDeviceClient(server.issuer);
      const mcp = `${server.issuer}/mcp`;
      const start = await startDevice(server.issuer, client, { scope: 'courses:read', resource: mcp });
      await approveDevice(server.issuer, start, server.user);
      expectOAuthError(await pollToken(server.issuer, client, start.device_code, { resource: server.issuer }), 400, 'invalid_target');
      const res = await pollToken(server.issuer, client, start.device_code, { resource: mcp });
      expect(res.status, res.text).toBe(200);
      // Without openid there is no ID token.
      expect(res.json.id_token).toBeUndefined();
      const intro = await readJson(
        await fetch(`${server.issuer}/api/oauth/introspect`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ token: res.json.access_token as string, client_id: client.clientId }).toString(),
        }),
      );
      expect(intro.json).toMatchObject({ active: true, aud: mcp });
    });

    it('unknown, missing and repeated device codes are invalid_grant or invalid_request, never a 5xx', async () => {
      const client = await registerDeviceClient(server.issuer);
      expectOAuthError(await pollToken(server.issuer, client, 'lyc_dc_nope'), 400, 'invalid_grant');
      expectOAuthError(await pollToken(server.issuer, client, ''), 400, 'invalid_request');
      const twice = await readJson(
        await fetch(`${server.issuer}/api/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: `grant_type=${encodeURIComponent(DEVICE_GRANT)}&device_code=a&device_code=b&client_id=${client.clientId}`,
        }),
      );
      expectOAuthError(twice, 400, 'invalid_request');
      // A client of the code grant only may not poll.
      const codeClient = await registerPublicClient(server.issuer);
      expectOAuthError(await pollToken(server.issuer, { clientId: codeClient }, 'lyc_dc_x'), 400, 'unauthorized_client');
    });
  });

  it.runIf(kind === 'postgres')('two instances on one database: started on A, approved on B, redeemed on A, once', async () => {
    const b = await startTestServer(kind, { DATABASE_URL: server.databaseUrl });
    try {
      const client = await registerDeviceClient(server.issuer);
      const start = await startDevice(server.issuer, client);
      expectOAuthError(await pollToken(server.issuer, client, start.device_code), 400, 'authorization_pending');
      // The person opens B's page (a load balancer may send them anywhere) with A's code.
      await approveDevice(b.issuer, { ...start, verification_uri_complete: start.verification_uri_complete.replace(server.issuer, b.issuer) }, server.user);
      const onA = await pollToken(server.issuer, client, start.device_code);
      expect(onA.status, onA.text).toBe(200);
      expectOAuthError(await pollToken(b.issuer, client, start.device_code), 400, 'invalid_grant');
    } finally {
      await b.close();
    }
  });

  describe('the person in control', () => {
    it('a code approved once cannot be approved again, by anyone', async () => {
      const client = await registerDeviceClient(server.issuer);
      const start = await startDevice(server.issuer, client);
      await approveDevice(server.issuer, start, server.user);
      const other = await server.addUser('owner');
      const agent = new UserAgent(server.issuer);
      const again = await submitCode(agent, await openDevicePage(agent, start.verification_uri_complete, other), start.user_code);
      expect(again.status).toBe(400);
      expect(again.html).toContain('already used');
      expect(again.html).not.toContain('/oauth/device/decision');
      const res = await pollToken(server.issuer, client, start.device_code);
      expect(res.status).toBe(200);
      const me = await readJson(await fetch(`${server.issuer}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${res.json.access_token as string}` } }));
      expect(me.json.sub).toBe(server.user.id);
    });

    it('disconnecting the app on /account/apps ends an approval the device has not redeemed yet', async () => {
      const client = await registerDeviceClient(server.issuer);
      const start = await startDevice(server.issuer, client);
      const agent = new UserAgent(server.issuer);
      await approveDevice(server.issuer, start, server.user, 'approve', agent);
      const apps = asPage(await agent.navigate('/account/apps'));
      expect(apps.html).toContain('Remote agent');
      const csrf = /name="_csrf" value="([^"]+)"/.exec(apps.html)![1]!;
      const res = await agent.request('/account/apps/disconnect', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.issuer, 'sec-fetch-site': 'same-origin' },
        body: new URLSearchParams({ _csrf: csrf, client_id: client.clientId }).toString(),
      });
      expect(res.status).toBe(200);
      expectOAuthError(await pollToken(server.issuer, client, start.device_code), 400, 'invalid_grant');
    });
  });
});
