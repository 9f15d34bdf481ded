import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, pkcePair, postForm, register, registerPublicClient } from '../helpers/oauth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { parseForms, UserAgent, asPage, type Page } from '../helpers/user-agent.ts';
import { APPS_PATH } from '../../src/web/connected-apps.ts';
import { browserApp, expectFormRefused } from '../helpers/browser-app.ts';

describe.each(STORE_KINDS)('connected apps page (%s)', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  const redirectUri = 'http://127.0.0.1:50505/callback';

  /** Approves a new app and returns its code, not yet redeemed. */
  async function approveApp(agent: UserAgent, user: { email: string; password: string }, name: string) {
    const clientId = await registerPublicClient(server.issuer, { client_name: name });
    const { verifier, challenge } = pkcePair();
    const callback = await agent.authorize(
      authorizeUrl(server.issuer, {
        response_type: 'code',
        client_id: clientId,
        redirect_uri: redirectUri,
        scope: 'openid profile',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: 's',
      }),
      user,
    );
    return { clientId, verifier, code: callback.searchParams.get('code')! };
  }

  const redeem = (a: { clientId: string; verifier: string; code: string }) =>
    postForm(`${server.issuer}/api/oauth/token`, { grant_type: 'authorization_code', code: a.code, redirect_uri: redirectUri, client_id: a.clientId, code_verifier: a.verifier });

  async function connect(agent: UserAgent, user: { email: string; password: string }, name: string) {
    const approved = await approveApp(agent, user, name);
    const token = await redeem(approved);
    expect(token.status).toBe(200);
    return { clientId: approved.clientId, accessToken: token.json.access_token as string, refreshToken: token.json.refresh_token as string };
  }

  /** Disconnects through the real form on /account/apps, with its CSRF token. */
  async function disconnect(agent: UserAgent, clientId: string) {
    const page = await agent.navigate('/account/apps');
    if (!('html' in page)) throw new Error('expected a page');
    const form = parseForms(page.html).find((f) => f.action === '/account/apps/disconnect' && f.fields.client_id === clientId)!;
    const after = await agent.submit(form, {});
    if (!('html' in after)) throw new Error('expected a page');
    expect(after.html).toContain('was disconnected');
  }

  it('sends a visitor who is not signed in to the sign-in form, and back to the page afterwards', async () => {
    const user = await server.addUser('student');
    const agent = new UserAgent(server.issuer);
    const first = await agent.navigate('/account/apps');
    expect('html' in first && first.html).toContain('name="password"');
    const form = parseForms('html' in first ? first.html : '').find((f) => f.action === '/oauth/sign-in')!;
    expect(form.fields.return_to).toBe('/account/apps');
    const after = await agent.submit(form, { email: user.email, password: user.password });
    expect('html' in after && after.html).toContain('No app has access to your account');
  });

  it('lists an approved app and disconnecting it revokes its tokens at once', async () => {
    const user = await server.addUser('owner');
    const agent = new UserAgent(server.issuer);
    const app = await connect(agent, user, 'Grading Assistant');
    const other = await connect(agent, user, 'Course Exporter');

    const page = await agent.navigate('/account/apps');
    if (!('html' in page)) throw new Error('expected a page');
    expect(page.html).toContain('Grading Assistant');
    expect(page.html).toContain('Course Exporter');
    expect(page.headers.get('x-frame-options')).toBe('DENY');

    const form = parseForms(page.html).find((f) => f.action === '/account/apps/disconnect' && f.fields.client_id === app.clientId)!;
    const after = await agent.submit(form, {});
    if (!('html' in after)) throw new Error('expected a page');
    expect(after.html).toContain('was disconnected');
    expect(after.html).not.toContain('Grading Assistant');
    expect(after.html).toContain('Course Exporter');

    const info = await fetch(`${server.issuer}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${app.accessToken}` } });
    expect(info.status).toBe(401);
    const refresh = await postForm(`${server.issuer}/api/oauth/token`, { grant_type: 'refresh_token', refresh_token: app.refreshToken, client_id: app.clientId });
    expect(refresh.json.error).toBe('invalid_grant');
    const stillFine = await fetch(`${server.issuer}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${other.accessToken}` } });
    expect(stillFine.status).toBe(200);
  });

  it('kills a code issued before the disconnect: redeeming it afterwards is invalid_grant', async () => {
    const user = await server.addUser('student');
    const agent = new UserAgent(server.issuer);
    const approved = await approveApp(agent, user, 'Code In Flight');
    await disconnect(agent, approved.clientId);
    const token = await redeem(approved);
    expect(token.status).toBe(400);
    expect(token.json).toEqual({ error: 'invalid_grant', error_description: 'The authorization code is invalid' });
    const page = await agent.navigate('/account/apps');
    expect('html' in page && page.html).not.toContain('Code In Flight');
  });

  it('refuses to refresh a family whose consent is gone, even when a token of it escaped revocation', async () => {
    const user = await server.addUser('student');
    const agent = new UserAgent(server.issuer);
    const app = await connect(agent, user, 'Racing Refresher');
    // The grant deleted as the page deletes it, the revocation not yet run: the race a disconnect
    // loses to a code redeemed in between leaves exactly this behind.
    expect(await server.deps.store.grants.delete(user.id, app.clientId)).toBe(true);
    const refresh = await postForm(`${server.issuer}/api/oauth/token`, { grant_type: 'refresh_token', refresh_token: app.refreshToken, client_id: app.clientId });
    expect(refresh.status).toBe(400);
    expect(refresh.json).toEqual({ error: 'invalid_grant', error_description: 'The user has disconnected this app' });
  });

  it('disconnect then refresh is invalid_grant; a reconnect works as before', async () => {
    const user = await server.addUser('student');
    const agent = new UserAgent(server.issuer);
    const app = await connect(agent, user, 'Comes Back');
    await disconnect(agent, app.clientId);
    const refresh = await postForm(`${server.issuer}/api/oauth/token`, { grant_type: 'refresh_token', refresh_token: app.refreshToken, client_id: app.clientId });
    expect(refresh.status).toBe(400);
    expect(refresh.json.error).toBe('invalid_grant');

    const fresh = await connect(agent, user, 'Comes Back Again');
    const rotated = await postForm(`${server.issuer}/api/oauth/token`, { grant_type: 'refresh_token', refresh_token: fresh.refreshToken, client_id: fresh.clientId });
    expect(rotated.status).toBe(200);
    expect(rotated.json.token_type).toBe('Bearer');
  });

  it('a confidential app with a covering grant still gets codes by prompt=none, until it is disconnected', async () => {
    const user = await server.addUser('student');
    const agent = new UserAgent(server.issuer);
    const reg = await register(server.issuer, { client_name: 'Silent Sync', redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'client_secret_post' });
    expect(reg.status).toBe(201);
    const client = { id: reg.json.client_id as string, secret: reg.json.client_secret as string };
    const silent = async (prompt?: string) => {
      const { verifier, challenge } = pkcePair();
      const url = authorizeUrl(server.issuer, {
        response_type: 'code',
        client_id: client.id,
        redirect_uri: redirectUri,
        scope: 'openid profile',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: 's',
        ...(prompt ? { prompt } : {}),
      });
      const callback = await agent.authorize(url, user);
      return { callback, verifier };
    };
    const exchange = (code: string, verifier: string) =>
      postForm(`${server.issuer}/api/oauth/token`, { grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: client.id, client_secret: client.secret, code_verifier: verifier });

    const first = await silent();
    expect((await exchange(first.callback.searchParams.get('code')!, first.verifier)).status).toBe(200);
    // The grant covers the request: prompt=none answers with a code, and the code works.
    const again = await silent('none');
    expect(again.callback.searchParams.get('error')).toBeNull();
    expect((await exchange(again.callback.searchParams.get('code')!, again.verifier)).status).toBe(200);

    const inFlight = await silent('none');
    await disconnect(agent, client.id);
    const late = await exchange(inFlight.callback.searchParams.get('code')!, inFlight.verifier);
    expect({ status: late.status, error: late.json.error }).toEqual({ status: 400, error: 'invalid_grant' });
    const after = await silent('none');
    expect(after.callback.searchParams.get('error')).toBe('consent_required');
  });

  it('refuses a disconnect without the form token, keeping the app connected', async () => {
    const user = await server.addUser('owner');
    const agent = new UserAgent(server.issuer);
    const app = await connect(agent, user, 'Forged Target');
    const res = await agent.request('/account/apps/disconnect', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: app.clientId }).toString(),
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toContain('text/html');
    const info = await fetch(`${server.issuer}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${app.accessToken}` } });
    expect(info.status).toBe(200);
  });

  it('signs out: the session ends and the page asks to sign in again', async () => {
    const user = await server.addUser('student');
    const agent = new UserAgent(server.issuer);
    await connect(agent, user, 'Any App');
    const page = await agent.navigate('/account/apps');
    const signOut = parseForms('html' in page ? page.html : '').find((f) => f.action === '/oauth/sign-out')!;
    await agent.submit(signOut, {});
    const again = await agent.navigate('/account/apps');
    expect('html' in again && again.html).toContain('name="password"');
  });
});

/**
 * /account/apps at its edges, over real HTTP: a disconnect that names no app
 * or an over-long one, an app registered without a name, and an app deleted
 * by its operator (`lyceum clients delete`) while the page is being built.
 */
const REDIRECT = 'http://127.0.0.1:61240/callback';
const DISCONNECT = `${APPS_PATH}/disconnect`;

/** The app names the page lists, sorted. */
const listedApps = (html: string) => [...html.matchAll(/<li class="app">\s*<h2>([^<]*)<\/h2>/g)].map((m) => m[1]).sort();

/** The HTML page of a refused disconnect: 400 invalid_request, nothing else changed. */
function expectNoAppChosen(page: Page) {
  expect(page.status, page.html.slice(0, 400)).toBe(400);
  expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(page.html).toContain('<code>invalid_request</code>');
  expect(page.html).toContain('<p class="error" role="alert">Choose an app to disconnect.</p>');
}

describe.each(STORE_KINDS)('connected apps at the edges (%s)', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server?.close());

  /** Registers an app (with this name, or none) and approves it in the browser. */
  async function connect(agent: UserAgent, user: { email: string; password: string }, name?: string): Promise<string> {
    const reg = await register(server.issuer, { ...(name ? { client_name: name } : {}), redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
    expect(reg.status).toBe(201);
    const clientId = reg.json.client_id as string;
    const link = authorizeUrl(server.issuer, {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      scope: 'openid',
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
      state: 'edges',
    });
    expect((await agent.authorize(link, user)).searchParams.get('code')).toMatch(/\S/);
    return clientId;
  }

  /** A user with one connected app, on the apps page: the page's form token for a hand-made disconnect. */
  async function onAppsPage() {
    const user = await server.addUser('student');
    const agent = new UserAgent(server.issuer);
    const clientId = await connect(agent, user, 'Edge Case App');
    const page = asPage(await agent.navigate(APPS_PATH));
    expect(listedApps(page.html)).toEqual(['Edge Case App']);
    const token = parseForms(page.html).find((f) => f.action === '/oauth/sign-out')!.fields._csrf!;
    const disconnect = async (fields: Record<string, string>) => asPage(await agent.submit({ action: DISCONNECT, fields: { _csrf: token } }, fields));
    return { agent, clientId, disconnect };
  }

  it('refuses a disconnect that names no app with 400 invalid_request, and the app stays connected', async () => {
    const { agent, disconnect } = await onAppsPage();
    expectNoAppChosen(await disconnect({}));
    expect(listedApps(asPage(await agent.navigate(APPS_PATH)).html)).toEqual(['Edge Case App']);
  });

  it('refuses a client_id longer than 200 characters, and looks up one of exactly 200', async () => {
    const { agent, disconnect } = await onAppsPage();
    expectNoAppChosen(await disconnect({ client_id: 'c'.repeat(201) }));
    const at200 = await disconnect({ client_id: 'c'.repeat(200) });
    expect(at200.status).toBe(200);
    expect(at200.html).toContain('<p class="notice" role="status">That app was not connected.</p>');
    expect(listedApps(asPage(await agent.navigate(APPS_PATH)).html)).toEqual(['Edge Case App']);
  });

  it('lists an app registered without a name as "An unnamed app"', async () => {
    const user = await server.addUser('student');
    const agent = new UserAgent(server.issuer);
    await connect(agent, user);
    expect(listedApps(asPage(await agent.navigate(APPS_PATH)).html)).toEqual(['An unnamed app']);
  });

  it('leaves out an app its operator deletes while the page is being built, instead of failing', async () => {
    const user = await server.addUser('student');
    const agent = new UserAgent(server.issuer);
    await connect(agent, user, 'Stays Listed');
    const gone = await connect(agent, user, 'Deleted Meanwhile');
    expect(listedApps(asPage(await agent.navigate(APPS_PATH)).html)).toEqual(['Deleted Meanwhile', 'Stays Listed']);

    // The deletion lands between the page's read of the consents and its read of each app.
    const grants = server.deps.store.grants;
    const listForUser = grants.listForUser;
    grants.listForUser = async (userId) => {
      const found = await listForUser.call(grants, userId);
      expect(await server.deps.store.clients.delete(gone)).toBe(true);
      return found;
    };
    let page: Page;
    try {
      page = asPage(await agent.navigate(APPS_PATH));
    } finally {
      grants.listForUser = listForUser;
    }
    expect(page.status, page.html.slice(0, 400)).toBe(200);
    expect(listedApps(page.html)).toEqual(['Stays Listed']);
  });
});

/**
 * /account/apps on a server started inside each test (its routes are made
 * while the app is built): a private, uncached page, what a disconnect says,
 * and the HTML pages that refuse one.
 */

describe.each(STORE_KINDS)('connected apps page of a freshly built server (%s)', (kind) => {
  it('is sent with no-store, and says whether a disconnect removed a connection', async () => {
    const server = await startTestServer(kind);
    try {
      const { clientId, user, agent, link } = await browserApp(server, { name: 'Fresh Apps Probe', redirectUri: REDIRECT, scope: 'courses:read students:read', state: 'apps' });
      await agent.authorize(link, user);
      const res = await agent.request(APPS_PATH);
      const html = await res.text();
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      // Personal data: never kept by a cache (RFC 9111 §5.2.2.5).
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(html).toContain('Fresh Apps Probe');
      expect(html).toContain('127.0.0.1');
      expect(html).toContain('courses:read');
      expect(html).toContain('students:read');
      const disconnect = parseForms(html).find((f) => f.action === `${APPS_PATH}/disconnect`)!;

      const first = asPage(await agent.submit(disconnect, { client_id: clientId }));
      expect(first.status).toBe(200);
      expect(first.html).toContain('The app was disconnected; its access was revoked.');
      const again = parseForms(first.html).find((f) => f.action === '/oauth/sign-out')!;
      const second = asPage(await agent.submit({ action: `${APPS_PATH}/disconnect`, fields: again.fields }, { client_id: clientId }));
      expect(second.status).toBe(200);
      expect(second.html).toContain('That app was not connected.');
    } finally {
      await server.close();
    }
  });

  it('refuses a disconnect without its form token, and one naming no app, with HTML pages', async () => {
    const server = await startTestServer(kind);
    try {
      const { clientId, user, agent, link } = await browserApp(server, { name: 'Fresh Refusal Probe', redirectUri: REDIRECT, scope: 'courses:read', state: 'refuse' });
      await agent.authorize(link, user);
      const form = (fields: Record<string, string>) =>
        agent.request(`${APPS_PATH}/disconnect`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
          body: new URLSearchParams(fields).toString(),
        });
      await expectFormRefused(await form({ client_id: clientId }), 'The form expired or was not sent from this site.');

      const page = asPage(await agent.navigate(APPS_PATH));
      const token = parseForms(page.html).find((f) => f.action === '/oauth/sign-out')!.fields._csrf!;
      const res = await form({ _csrf: token });
      const html = await res.text();
      expect(res.status, html.slice(0, 400)).toBe(400);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(html).toContain('<code>invalid_request</code>');
      expect(html).toContain('Choose an app to disconnect.');
      expect(asPage(await agent.navigate(APPS_PATH)).html).toContain('Fresh Refusal Probe');
    } finally {
      await server.close();
    }
  });
});
