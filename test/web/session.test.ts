/**
 * Sessions: the cookie name of an issuer without a port, and sign-out ending
 * the session on the server, not only in the browser.
 */
import { describe, expect, it } from 'vitest';
import { APPS_PATH } from '../../src/web/connected-apps.ts';
import { csrfCookieName, sessionCookieName } from '../../src/web/interaction/session.ts';
import { browserApp } from '../helpers/browser-app.ts';
import { startTestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { asPage, parseForms } from '../helpers/user-agent.ts';

const REDIRECT = 'http://127.0.0.1:61237/callback';

describe('cookie names of an issuer on its scheme’s default port', () => {
  it('carry 80 for http and 443 for https (RFC 3986 §3.2.3: an empty port is the scheme’s default)', () => {
    expect(sessionCookieName({ issuer: 'http://school.example', secureCookies: false })).toBe('lyceum_80_session');
    expect(csrfCookieName({ issuer: 'https://school.example', secureCookies: false })).toBe('lyceum_443_csrf');
  });
});

describe.each(STORE_KINDS)('sign-out (%s)', (kind) => {
  it('ends the session on the server: the old cookie, replayed with its form token, no longer signs anyone in', async () => {
    const server = await startTestServer(kind);
    try {
      const { clientId, user, agent, link } = await browserApp(server, { name: 'Sign-out Probe', redirectUri: REDIRECT, scope: 'courses:read', state: 'sign-out' });
      await agent.authorize(link, user);
      const apps = asPage(await agent.navigate(APPS_PATH));
      expect(apps.status).toBe(200);
      const forms = parseForms(apps.html);
      const signOut = forms.find((f) => f.action === '/oauth/sign-out')!;
      const disconnect = forms.find((f) => f.action === `${APPS_PATH}/disconnect`)!;
      const oldCookies = agent.cookieHeader();
      expect(oldCookies).toContain(`${sessionCookieName(server.deps.config)}=`);

      const out = await agent.request(signOut.action, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(signOut.fields).toString(),
      });
      expect(out.status).toBe(303);
      expect(out.headers.get('location')).toBe('/');

      // The session the cookie named is gone: its page asks to sign in again.
      const page = await fetch(`${server.issuer}${APPS_PATH}`, { redirect: 'manual', headers: { cookie: oldCookies } });
      expect(page.status).toBe(303);
      expect(page.headers.get('location')).toBe('/oauth/sign-in?return_to=%2Faccount%2Fapps');
      // A disconnect with the old cookies and their valid token: sent to sign in, the consent kept.
      const replay = await fetch(`${server.issuer}${disconnect.action}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: oldCookies },
        body: new URLSearchParams({ ...disconnect.fields }).toString(),
      });
      expect(replay.status).toBe(303);
      expect(replay.headers.get('location')).toBe('/oauth/sign-in?return_to=%2Faccount%2Fapps');
      expect(await server.deps.store.grants.find(user.id, clientId)).toBeDefined();
    } finally {
      await server.close();
    }
  });
});
