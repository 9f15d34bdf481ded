/**
 * Clients the school adds with `lyceum clients add`, over real HTTP: an
 * editor that receives the code on a private-use scheme (Cursor's
 * cursor://) and a hosted app on https (Claude's callback) complete the
 * authorization code flow; their redirect URIs match exactly as written;
 * --scope is a ceiling; the consent and connected-apps pages say the school
 * registered them; open registration still takes loopback URIs only.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOperatorClient } from '../../src/cli/clients.ts';
import { startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { authorizeUrl, pkcePair, postForm, register, registerPublicClient } from '../helpers/oauth.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { asPage, parseForms, UserAgent, type Page } from '../helpers/user-agent.ts';
import { decide, DEVICE_GRANT, openDevicePage, pollToken, startDevice, submitCode } from '../helpers/device.ts';

const CURSOR = 'cursor://anysphere.cursor-mcp/oauth/callback';
const CLAUDE = 'https://claude.ai/api/mcp/auth_callback';
const SCHOOL_MARK = 'Registered by the school.';

describe.each(STORE_KINDS)('clients registered by the school (%s)', (kind) => {
  let server: FlowServer;
  let cursor: { clientId: string };
  let claude: { clientId: string; clientSecret: string };

  /** `lyceum clients add ...` on the server's own store, as the operator runs it. */
  async function add(...args: string[]) {
    const { client, secret } = await addOperatorClient(server.deps.store, server.deps.config, args);
    return { clientId: client.id, secret };
  }

  beforeAll(async () => {
    server = await startFlowServer(kind);
    cursor = await add('--name', 'Cursor', '--redirect-uri', CURSOR);
    const c = await add('--name', 'Claude', '--redirect-uri', CLAUDE, '--confidential', '--scope', 'openid profile courses:read');
    claude = { clientId: c.clientId, clientSecret: c.secret! };
  });
  afterAll(async () => {
    await server?.stop();
  });

  interface Started {
    agent: UserAgent;
    verifier: string;
    state: string;
    consent: Page;
  }

  /** Opens the authorization request and signs in: the consent page it reaches. */
  async function untilConsent(clientId: string, redirectUri: string, scope: string): Promise<Started> {
    const agent = new UserAgent(server.issuer);
    const { verifier, challenge } = pkcePair();
    const state = randomBytes(8).toString('hex');
    const url = authorizeUrl(server.issuer, { response_type: 'code', client_id: clientId, redirect_uri: redirectUri, scope, code_challenge: challenge, code_challenge_method: 'S256', state });
    const signIn = parseForms(asPage(await agent.navigate(url)).html).find((f) => f.action === '/oauth/sign-in')!;
    const consent = asPage(await agent.submit(signIn, { email: server.user.email, password: server.user.password }));
    return { agent, verifier, state, consent };
  }

  /** Approves on the consent page; the raw answer, whose Location goes to the client. */
  async function approve(started: Started): Promise<Response> {
    const form = parseForms(started.consent.html).find((f) => f.action === '/oauth/authorize/decision')!;
    return started.agent.request(form.action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...form.fields, decision: 'approve' }).toString(),
    });
  }

  const userinfo = (accessToken: string) => fetch(`${server.issuer}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } });

  it('a public client on cursor:// gets its code on that scheme and completes code + PKCE → token → UserInfo', async () => {
    const started = await untilConsent(cursor.clientId, CURSOR, 'openid profile courses:read');
    const answer = await approve(started);
    expect(answer.status).toBe(303);
    const location = answer.headers.get('location')!;
    // RFC 6749 §4.1.2 and RFC 9207 §2: code, state and iss on the registered URI, as registered.
    expect(location.startsWith(`${CURSOR}?code=lyc_ac_`), location).toBe(true);
    const callback = new URL(location);
    expect([...callback.searchParams.keys()]).toEqual(['code', 'state', 'iss']);
    expect(callback.searchParams.get('state')).toBe(started.state);
    expect(callback.searchParams.get('iss')).toBe(server.issuer);

    const token = await postForm(server.tokenEndpoint, {
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code')!,
      redirect_uri: CURSOR,
      client_id: cursor.clientId,
      code_verifier: started.verifier,
    });
    expect(token.status, token.text).toBe(200);
    expect(token.json.scope).toBe('openid profile courses:read');
    const info = await userinfo(token.json.access_token as string);
    expect(info.status).toBe(200);
    expect(((await info.json()) as Record<string, unknown>).sub).toBe(server.user.id);
  });

  it('a reverse-domain private-use URI without an authority (RFC 8252 §7.1) gets its code as registered', async () => {
    const uri = 'com.example.app:/oauth2redirect/lyceum';
    const app = await add('--name', 'Native app', '--redirect-uri', uri);
    const started = await untilConsent(app.clientId, uri, 'courses:read');
    expect(started.consent.html).toContain('you go back to\n<strong>com.example.app:</strong>.');
    const location = (await approve(started)).headers.get('location')!;
    expect(location.startsWith(`${uri}?code=lyc_ac_`), location).toBe(true);
    const token = await postForm(server.tokenEndpoint, {
      grant_type: 'authorization_code',
      code: new URL(location).searchParams.get('code')!,
      redirect_uri: uri,
      client_id: app.clientId,
      code_verifier: started.verifier,
    });
    expect(token.status, token.text).toBe(200);
  });

  it('the code of a cursor:// client is refused at the token endpoint without its PKCE verifier', async () => {
    const started = await untilConsent(cursor.clientId, CURSOR, 'courses:read');
    const code = new URL((await approve(started)).headers.get('location')!).searchParams.get('code')!;
    const token = await postForm(server.tokenEndpoint, { grant_type: 'authorization_code', code, redirect_uri: CURSOR, client_id: cursor.clientId, code_verifier: pkcePair().verifier });
    expect(token.status).toBe(400);
    expect(token.json.error).toBe('invalid_grant');
  });

  it('a confidential https client completes the flow with its secret, within the scopes the school allowed it', async () => {
    const started = await untilConsent(claude.clientId, CLAUDE, 'openid profile courses:read students:read');
    // RFC 6749 §3.3: what lies outside --scope is dropped before the user is asked.
    expect(started.consent.html).toContain('<code>courses:read</code>');
    expect(started.consent.html).not.toContain('<code>students:read</code>');
    const answer = await approve(started);
    expect(answer.status).toBe(303);
    const callback = new URL(answer.headers.get('location')!);
    expect(`${callback.origin}${callback.pathname}`).toBe(CLAUDE);
    expect(callback.searchParams.get('state')).toBe(started.state);
    const fields = { grant_type: 'authorization_code', code: callback.searchParams.get('code')!, redirect_uri: CLAUDE, client_id: claude.clientId, code_verifier: started.verifier };

    const withoutSecret = await postForm(server.tokenEndpoint, fields);
    expect(withoutSecret.status).toBe(401);
    expect(withoutSecret.json).toEqual({ error: 'invalid_client', error_description: 'client_secret is required for this client' });
    const wrongSecret = await postForm(server.tokenEndpoint, { ...fields, client_secret: 'lyc_cs_wrong' });
    expect(wrongSecret.status).toBe(401);

    const token = await postForm(server.tokenEndpoint, { ...fields, client_secret: claude.clientSecret });
    expect(token.status, token.text).toBe(200);
    expect(token.json.scope).toBe('openid profile courses:read');
    const info = await userinfo(token.json.access_token as string);
    expect(info.status).toBe(200);
    expect(((await info.json()) as Record<string, unknown>).sub).toBe(server.user.id);
  });

  it('a request for nothing the school allowed is sent back to the client as invalid_scope', async () => {
    const agent = new UserAgent(server.issuer);
    const url = authorizeUrl(server.issuer, {
      response_type: 'code',
      client_id: claude.clientId,
      redirect_uri: CLAUDE,
      scope: 'students:read',
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
      state: 'st',
    });
    const res = await agent.request(url);
    expect(res.status).toBe(302);
    const callback = new URL(res.headers.get('location')!);
    expect(`${callback.origin}${callback.pathname}`).toBe(CLAUDE);
    expect(Object.fromEntries(callback.searchParams)).toEqual({
      error: 'invalid_scope',
      error_description: 'This app may ask only for: openid profile courses:read',
      state: 'st',
      iss: server.issuer,
    });
  });

  it.each([
    ['another path on the scheme', CURSOR, `${CURSOR}/other`],
    ['an added query', CURSOR, `${CURSOR}?next=x`],
    ['another host on the scheme', CURSOR, 'cursor://evil.example/oauth/callback'],
    ['the scheme in upper case', CURSOR, CURSOR.replace('cursor:', 'CURSOR:')],
    ['the https URI with its default port written out', CLAUDE, 'https://claude.ai:443/api/mcp/auth_callback'],
    ['the https URI with a trailing slash', CLAUDE, `${CLAUDE}/`],
    ['the https URI on http', CLAUDE, CLAUDE.replace('https:', 'http:')],
  ])('refuses %s with the error page, never a redirect (exact match, RFC 6749 §3.1.2.3)', async (_what, registered, requested) => {
    const clientId = registered === CURSOR ? cursor.clientId : claude.clientId;
    const url = authorizeUrl(server.issuer, {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: requested,
      scope: 'courses:read',
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
      state: 'st',
    });
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    expect(html).toContain('redirect_uri does not match any URI registered for this client.');
    expect(html).toContain('Error code: <code>invalid_request</code>.');
  });

  it('reads the flags by the school’s rules: a bad URI or scope is refused naming its flag, the school’s own words are allowed', async () => {
    await expect(add('--name', 'X', '--redirect-uri', CLAUDE, '--redirect-uri', 'http://example.com/cb', '--redirect-uri', 'javascript:alert(1)')).rejects.toThrow(
      /^--redirect-uri: http:\/\/example\.com\/cb is plain http on a host that is not loopback .*; javascript:alert\(1\) uses the javascript: scheme/,
    );
    await expect(add('--name', 'X', '--redirect-uri', CLAUDE, '--scope', 'openid admin root')).rejects.toThrow('--scope: holds the unknown scope admin root');
    await expect(add('--name', 'X', '--redirect-uri', CLAUDE, '--scope', ' ')).rejects.toThrow('--scope: must name at least one scope');
    const { clientId } = await add('--name', 'Helper (Registered by the school)', '--redirect-uri', CLAUDE, '--scope', 'courses:read openid');
    expect((await server.deps.store.clients.find(clientId))!.metadata).toEqual({
      client_name: 'Helper (Registered by the school)',
      redirect_uris: [CLAUDE],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'web',
      scope: 'openid courses:read',
    });
  });

  it('a loopback URI the school registers keeps the loopback rule: any port (RFC 8252 §7.3)', async () => {
    const local = await add('--name', 'Local tool', '--redirect-uri', 'http://127.0.0.1/callback', '--redirect-uri', CURSOR);
    const ask = (redirectUri: string) =>
      fetch(
        authorizeUrl(server.issuer, {
          response_type: 'code',
          client_id: local.clientId,
          redirect_uri: redirectUri,
          scope: 'courses:read',
          code_challenge: pkcePair().challenge,
          code_challenge_method: 'S256',
        }),
        { redirect: 'manual' },
      );
    // Validated: the visitor is asked to sign in.
    expect((await ask('http://127.0.0.1:53111/callback')).status).toBe(200);
    expect((await ask(CURSOR)).status).toBe(200);
    expect((await ask('http://127.0.0.1:53111/other')).status).toBe(400);
  });

  it('open registration still refuses a redirect URI that is not loopback', async () => {
    for (const uri of [CURSOR, CLAUDE]) {
      const { status, json } = await register(server.issuer, { client_name: 'Self-registered', redirect_uris: [uri], token_endpoint_auth_method: 'none' });
      expect(status).toBe(400);
      expect(json.error).toBe('invalid_redirect_uri');
    }
  });

  it('the consent page marks a client the school registered, and not one that registered itself', async () => {
    const school = await untilConsent(cursor.clientId, CURSOR, 'courses:read');
    expect(school.consent.html).toContain(SCHOOL_MARK);
    expect(school.consent.html).toContain('you go back to\n<strong>cursor://anysphere.cursor-mcp</strong>.');
    expect(school.consent.html).not.toContain('This app registered itself');

    const selfRegistered = await registerPublicClient(server.issuer, { client_name: 'Self-registered' });
    const open = await untilConsent(selfRegistered, 'http://127.0.0.1:50111/callback', 'courses:read');
    expect(open.consent.html).not.toContain(SCHOOL_MARK);
    expect(open.consent.html).toContain('This app registered itself; Lyceum has not reviewed it.');
  });

  it('the connected-apps page does not mark a client that registered itself as the school’s', async () => {
    const selfRegistered = await registerPublicClient(server.issuer, { client_name: 'Self-registered app' });
    const started = await untilConsent(selfRegistered, 'http://127.0.0.1:50112/callback', 'courses:read');
    expect((await approve(started)).status).toBe(303);
    const page = asPage(await started.agent.navigate('/account/apps'));
    const entry = page.html.split('<li class="app">').find((li) => li.includes(selfRegistered))!;
    expect(entry).toContain('<h2>Self-registered app</h2>\n<p class="registered-itself">Registered itself; the school has not reviewed it</p>');
    expect(entry).not.toContain('registered-by-school');
    expect(entry).not.toContain('Registered by the school');
  });

  it('an app that registers itself cannot name itself as registered by the school', async () => {
    for (const client_name of [
      'Cursor (Registered by the school)',
      'Claude — registered by school',
      'Tool REGISTERED  BY THIS SCHOOL',
      'Ｒｅｇｉｓｔｅｒｅｄ by the school',
      'registered by  the school',
      'registered by the  school',
      'registered by this  school',
    ]) {
      const res = await fetch(`${server.issuer}/api/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name, redirect_uris: ['http://127.0.0.1/callback'] }),
      });
      expect(res.status, client_name).toBe(400);
      expect(await res.json()).toEqual({
        error: 'invalid_client_metadata',
        error_description: 'client_name must not say the app was registered by the school: only the school registers its own apps',
      });
    }
    // Other names that mention the school are fine.
    expect(
      (
        await fetch(`${server.issuer}/api/oauth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ client_name: 'School helper', redirect_uris: ['http://127.0.0.1/callback'] }),
        })
      ).status,
    ).toBe(201);
  });

  it('the connected-apps page marks the school’s client, and disconnecting it revokes its tokens', async () => {
    const started = await untilConsent(cursor.clientId, CURSOR, 'openid courses:read');
    const code = new URL((await approve(started)).headers.get('location')!).searchParams.get('code')!;
    const token = await postForm(server.tokenEndpoint, { grant_type: 'authorization_code', code, redirect_uri: CURSOR, client_id: cursor.clientId, code_verifier: started.verifier });
    expect(token.status).toBe(200);
    const accessToken = token.json.access_token as string;
    expect((await userinfo(accessToken)).status).toBe(200);

    const page = asPage(await started.agent.navigate('/account/apps'));
    const entry = page.html.split('<li class="app">').find((li) => li.includes(cursor.clientId))!;
    expect(entry).toContain('<h2>Cursor</h2>\n<p class="registered-by-school">Registered by the school</p>');
    expect(entry).toContain('returns to cursor://anysphere.cursor-mcp');
    const form = parseForms(page.html).find((f) => f.action === '/account/apps/disconnect' && f.fields.client_id === cursor.clientId)!;
    const after = asPage(await started.agent.submit(form, {}));
    expect(after.html).toContain('The app was disconnected; its access was revoked.');
    expect((await userinfo(accessToken)).status).toBe(401);
    const refresh = await postForm(server.tokenEndpoint, { grant_type: 'refresh_token', refresh_token: token.json.refresh_token as string, client_id: cursor.clientId });
    expect(refresh.json.error).toBe('invalid_grant');
  });

  it('--device: a school app without a browser or redirect URI signs people in with the device grant; the page says the school registered it', async () => {
    const kiosk = await add('--name', 'Classroom kiosk', '--device', '--confidential');
    const client = await server.deps.store.clients.find(kiosk.clientId);
    expect(client!.metadata).toMatchObject({ redirect_uris: [], grant_types: ['refresh_token', DEVICE_GRANT], response_types: [] });
    const device = { clientId: kiosk.clientId, clientSecret: kiosk.secret! };
    const start = await startDevice(server.issuer, device, { scope: 'courses:read' });
    const agent = new UserAgent(server.issuer);
    const consent = await submitCode(agent, await openDevicePage(agent, start.verification_uri_complete, server.user), start.user_code);
    expect(consent.html).toContain(SCHOOL_MARK);
    await decide(agent, consent, 'approve');
    const token = await pollToken(server.issuer, device, start.device_code);
    expect(token.status, token.text).toBe(200);
    await expect(add('--name', 'Nothing')).rejects.toThrow(/--redirect-uri is required, or --device/);
  });
});
