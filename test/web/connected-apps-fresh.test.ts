/**
 * /account/apps on a server started inside each test (its routes are made
 * while the app is built): a private, uncached page, what a disconnect says,
 * and the HTML pages that refuse one.
 */
import { describe, expect, it } from 'vitest';
import { APPS_PATH } from '../../src/web/connected-apps.ts';
import { browserApp, expectFormRefused } from '../helpers/browser-app.ts';
import { startTestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { asPage, parseForms } from '../helpers/user-agent.ts';

const REDIRECT = 'http://127.0.0.1:61238/callback';

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
