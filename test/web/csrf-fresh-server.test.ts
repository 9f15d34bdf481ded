/**
 * The CSRF protection is wired while the app is built, so each check here
 * starts its own server: the secret cookie's attributes, a sign-in that goes
 * through with the page's own token, and the refusals of a form sent without
 * it or from another origin.
 */
import { describe, expect, it } from 'vitest';
import { csrfCookieName, sessionCookieName } from '../../src/web/interaction/session.ts';
import { browserApp, expectFormRefused } from '../helpers/browser-app.ts';
import { startTestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { parseForms } from '../helpers/user-agent.ts';

const REDIRECT = 'http://127.0.0.1:61236/callback';

function post(issuer: string, path: string, fields: Record<string, string>, cookie: string, headers: Record<string, string> = {}) {
  return fetch(`${issuer}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, 'sec-fetch-site': 'same-origin', ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}


describe.each(STORE_KINDS)('CSRF protection of a freshly built server (%s)', (kind) => {
  it('sets an unsigned HttpOnly, SameSite=Lax secret cookie, accepts the page’s own token and refuses a form without it or from another origin', async () => {
    const server = await startTestServer(kind);
    try {
      const { user, agent, link } = await browserApp(server, { name: 'Fresh CSRF Probe', redirectUri: REDIRECT, scope: 'openid courses:read', state: 'fresh' });
      const res = await agent.request(link, { redirect: 'manual' });
      // Follow to the sign-in page by hand, to see its Set-Cookie line.
      const signInUrl = res.status === 200 ? link : new URL(res.headers.get('location')!, server.issuer).href;
      const page = await fetch(signInUrl, { redirect: 'manual' });
      const html = await page.text();
      expect(page.status, html.slice(0, 400)).toBe(200);
      const csrfName = csrfCookieName(server.deps.config);
      const setCookie = page.headers.getSetCookie();
      expect(setCookie).toHaveLength(1);
      // The secret is a plain random value (no cookie signature: the token is what is bound), HttpOnly and SameSite=Lax on the whole site.
      expect(setCookie[0]).toMatch(new RegExp(`^${csrfName}=[A-Za-z0-9_-]{24}; Path=/; HttpOnly; SameSite=Lax$`));
      const cookie = setCookie[0]!.split(';')[0]!;
      const signIn = parseForms(html).find((f) => f.action === '/oauth/sign-in')!;
      expect(signIn.fields._csrf).toMatch(/\S{20,}/);
      const credentials = { email: user.email, password: user.password };

      // Without the token: refused, nothing signed in.
      const { _csrf, ...withoutToken } = signIn.fields;
      await expectFormRefused(await post(server.issuer, signIn.action, { ...withoutToken, ...credentials }, cookie), 'The form expired or was not sent from this site.');
      // With the token but from another origin: refused before the token is looked at.
      await expectFormRefused(
        await post(server.issuer, signIn.action, { ...signIn.fields, ...credentials }, cookie, { 'sec-fetch-site': 'cross-site' }),
        'This form was not sent from this site’s own page, so nothing was done.',
      );
      // The page's own token from the page's own origin: signed in.
      const ok = await post(server.issuer, signIn.action, { ...signIn.fields, ...credentials }, cookie);
      expect(ok.status, (await ok.clone().text()).slice(0, 400)).toBe(303);
      expect(ok.headers.getSetCookie().some((line) => line.startsWith(`${sessionCookieName(server.deps.config)}=`))).toBe(true);
      expect(_csrf).toBeDefined();
    } finally {
      await server.close();
    }
  });
});
