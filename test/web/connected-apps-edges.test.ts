/**
 * /account/apps at its edges, over real HTTP: a disconnect that names no app
 * or an over-long one, an app registered without a name, and an app deleted
 * by its operator (`lyceum clients delete`) while the page is being built.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPS_PATH } from '../../src/web/connected-apps.ts';
import { authorizeUrl, pkcePair, register } from '../helpers/oauth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { asPage, parseForms, UserAgent, type Page } from '../helpers/user-agent.ts';

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
