/**
 * The sign-in page and sign-out are browser routes, set up while the app is
 * built: each check here starts its own server. Their refusals are readable
 * HTML pages, never JSON, and sign-out takes no form without its token.
 */
import { describe, expect, it } from 'vitest';
import { APPS_PATH } from '../../src/web/connected-apps.ts';
import { expectFormRefused } from '../helpers/browser-app.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { asPage, parseForms, UserAgent } from '../helpers/user-agent.ts';

/** A browser signed in through the form, on the connected-apps page. */
async function signedIn(server: TestServer) {
  const user = await server.addUser('student');
  const agent = new UserAgent(server.issuer);
  const page = asPage(await agent.navigate(`/oauth/sign-in?return_to=${encodeURIComponent(APPS_PATH)}`));
  const form = parseForms(page.html).find((f) => f.action === '/oauth/sign-in')!;
  const apps = asPage(await agent.submit(form, { email: user.email, password: user.password }));
  expect(apps.url).toBe(`${server.issuer}${APPS_PATH}`);
  return { user, agent };
}

describe.each(STORE_KINDS)('sign-in page and sign-out of a freshly built server (%s)', (kind) => {
  it('answers a sign-in page request it refuses with an HTML error page', async () => {
    const server = await startTestServer(kind);
    try {
      const res = await fetch(`${server.issuer}/oauth/sign-in?return_to=%00`, { redirect: 'manual' });
      const html = await res.text();
      expect(res.status, html.slice(0, 400)).toBe(400);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(html).toContain('<code>invalid_request</code>');
      expect(html).toContain('Parameters must not contain NUL characters');
    } finally {
      await server.close();
    }
  });

  it('refuses a sign-out without its form token with an HTML page, and the session survives', async () => {
    const server = await startTestServer(kind);
    try {
      const { user, agent } = await signedIn(server);
      const res = await agent.request('/oauth/sign-out', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
        body: '',
      });
      await expectFormRefused(res, 'The form expired or was not sent from this site.');
      const apps = asPage(await agent.navigate(APPS_PATH));
      expect(apps.url).toBe(`${server.issuer}${APPS_PATH}`);
      expect(apps.html).toContain(user.email);
    } finally {
      await server.close();
    }
  });
});
