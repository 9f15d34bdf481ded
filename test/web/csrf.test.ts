/**
 * The browser forms (sign-in, consent decision, disconnect, sign-out) over
 * plain HTTP: a POST from another origin is refused whatever it carries, and a
 * CSRF token only works with the session it was made for.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrfCookieName, sessionCookieName } from '../../src/web/interaction/session.ts';
import { expectFormRefused, browserApp } from '../helpers/browser-app.ts';
import { authorizeUrl, pkcePair, registerPublicClient } from '../helpers/oauth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { parseForms, UserAgent, type FormInfo, type Page } from '../helpers/user-agent.ts';

const REDIRECT = 'http://127.0.0.1:61235/callback';
const REFUSED = 'This form was not sent from this site’s own page, so nothing was done.';
const EXPIRED = 'The form expired or was not sent from this site.';

function form(step: Page | { redirect: URL }, action: string): FormInfo {
  if ('redirect' in step) throw new Error(`expected a page, got a redirect to ${step.redirect.href}`);
  const found = parseForms(step.html).find((f) => f.action === action);
  if (!found) throw new Error(`no form to ${action} on the page (${step.status}): ${step.html.slice(0, 400)}`);
  return found;
}

/** The cookies an agent holds, by name. */
function jar(agent: UserAgent): Map<string, string> {
  return new Map(
    agent
      .cookieHeader()
      .split('; ')
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)] as [string, string]),
  );
}

/** A form POST with exactly these cookies and headers, the way a browser made to send them would. */
function post(issuer: string, path: string, fields: Record<string, string>, cookies: Map<string, string>, headers: Record<string, string> = {}) {
  return fetch(`${issuer}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
      ...headers,
    },
    body: new URLSearchParams(fields).toString(),
  });
}

/** The client's redirect with a code: the request went through. */
function expectCode(res: Response): void {
  expect(res.status).toBe(303);
  const location = new URL(res.headers.get('location')!);
  expect(location.origin + location.pathname).toBe(REDIRECT);
  expect(location.searchParams.get('code')).toMatch(/^\S{16,}$/);
}

describe('cookie names', () => {
  it('carry the issuer’s port, and the __Host- prefix over https', () => {
    expect(sessionCookieName({ issuer: 'http://127.0.0.1:3000', secureCookies: false })).toBe('lyceum_3000_session');
    expect(csrfCookieName({ issuer: 'http://localhost:4000', secureCookies: false })).toBe('lyceum_4000_csrf');
    expect(sessionCookieName({ issuer: 'https://school.example', secureCookies: true })).toBe('__Host-lyceum_443_session');
    expect(csrfCookieName({ issuer: 'https://school.example:8443', secureCookies: true })).toBe('__Host-lyceum_8443_csrf');
  });
});

describe.each(STORE_KINDS)('browser forms: same origin and same session only (%s)', (kind) => {
  let server: TestServer;
  let clientId: string;

  beforeAll(async () => {
    server = await startTestServer(kind);
    clientId = await registerPublicClient(server.issuer, { client_name: 'CSRF Probe', redirect_uris: [REDIRECT] });
  });
  afterAll(() => server.close());

  const authorizeLink = () =>
    authorizeUrl(server.issuer, {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      scope: 'openid profile courses:read',
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
      state: 'csrf-state',
    });

  /** A user signed in through the forms, looking at the consent page. */
  async function atConsent() {
    const user = await server.addUser('owner');
    const agent = new UserAgent(server.issuer);
    const signIn = form(await agent.navigate(authorizeLink()), '/oauth/sign-in');
    const consent = form(await agent.submit(signIn, { email: user.email, password: user.password }), '/oauth/authorize/decision');
    return { user, agent, consent };
  }

  const grantOf = (userId: string) => server.deps.store.grants.find(userId, clientId);

  it('names its cookies after the issuer’s port, so other apps on the same host keep theirs', async () => {
    const port = new URL(server.issuer).port;
    expect(sessionCookieName(server.deps.config)).toBe(`lyceum_${port}_session`);
    expect(csrfCookieName(server.deps.config)).toBe(`lyceum_${port}_csrf`);
    const { agent } = await atConsent();
    expect([...jar(agent).keys()].sort()).toEqual([`lyceum_${port}_csrf`, `lyceum_${port}_session`]);
  });

  describe('a consent decision from another origin is refused, with no code and no grant', () => {
    it.each([
      ['an Origin of another loopback port', { origin: 'http://127.0.0.1:5173' }],
      ['an Origin of another host name for the same address', { origin: 'http://localhost:PORT' }],
      ['Origin: null', { origin: 'null' }],
      ['Sec-Fetch-Site: same-site (another port of the same host)', { 'sec-fetch-site': 'same-site' }],
      ['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }],
      ['Sec-Fetch-Site: none', { 'sec-fetch-site': 'none' }],
      ['Sec-Fetch-Site: same-site beside the issuer’s own Origin', { 'sec-fetch-site': 'same-site', origin: 'ISSUER' }],
    ])('%s', async (_name, headers) => {
      const { user, agent, consent } = await atConsent();
      const port = new URL(server.issuer).port;
      const sent = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, v.replace('PORT', port).replace('ISSUER', server.issuer)]));
      await expectFormRefused(await post(server.issuer, consent.action, { ...consent.fields, decision: 'approve' }, jar(agent), sent), REFUSED);
      expect(await grantOf(user.id)).toBeUndefined();

      // The same form from Lyceum's own page goes through: only the origin was wrong.
      expectCode(await post(server.issuer, consent.action, { ...consent.fields, decision: 'approve' }, jar(agent), { 'sec-fetch-site': 'same-origin' }));
      expect(await grantOf(user.id)).toBeDefined();
    });
  });

  it.each([
    ['Sec-Fetch-Site: same-origin (what a browser sends from Lyceum’s page)', { 'sec-fetch-site': 'same-origin' }],
    ['Sec-Fetch-Site: same-origin with Origin: null (a no-referrer page in Chromium)', { 'sec-fetch-site': 'same-origin', origin: 'null' }],
    ['the issuer’s Origin without Sec-Fetch-Site (a browser without Fetch Metadata)', { origin: 'ISSUER' }],
    ['neither header (a program posting the form, not a browser)', {}],
  ])('accepts a consent decision with %s', async (_name, headers) => {
    const { user, agent, consent } = await atConsent();
    const sent = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, v.replace('ISSUER', server.issuer)]));
    expectCode(await post(server.issuer, consent.action, { ...consent.fields, decision: 'approve' }, jar(agent), sent));
    expect((await grantOf(user.id))?.scope.split(' ').sort()).toEqual(['courses:read', 'openid', 'profile']);
  });

  it('refuses a sign-in from another origin: no session starts', async () => {
    const user = await server.addUser('owner');
    const agent = new UserAgent(server.issuer);
    const signIn = form(await agent.navigate(authorizeLink()), '/oauth/sign-in');
    const fields = { ...signIn.fields, email: user.email, password: user.password };
    await expectFormRefused(await post(server.issuer, signIn.action, fields, jar(agent), { 'sec-fetch-site': 'same-site' }), REFUSED);
    await expectFormRefused(await post(server.issuer, signIn.action, fields, jar(agent), { origin: 'http://127.0.0.1:8080' }), REFUSED);
    expect(jar(agent).has(sessionCookieName(server.deps.config))).toBe(false);
  });

  it('refuses an extension from another origin or without its token: the consent keeps its end', async () => {
    const { user, agent, consent } = await atConsent();
    await agent.submit(consent, { decision: 'approve', duration: '1h' });
    const before = (await grantOf(user.id))!.expiresAt;
    const extend = form(await agent.navigate('/account/apps'), '/account/apps/extend');
    const fields: Record<string, string> = { ...extend.fields, duration: 'forever' };
    await expectFormRefused(await post(server.issuer, extend.action, fields, jar(agent), { 'sec-fetch-site': 'same-site' }), REFUSED);
    await expectFormRefused(await post(server.issuer, extend.action, fields, jar(agent), { origin: 'http://127.0.0.1:3001' }), REFUSED);
    const { _csrf: _token, ...withoutToken } = fields;
    expect((await post(server.issuer, extend.action, withoutToken, jar(agent), { 'sec-fetch-site': 'same-origin' })).status).toBe(403);
    expect((await grantOf(user.id))!.expiresAt).toBe(before);
    const done = await post(server.issuer, extend.action, fields, jar(agent), { 'sec-fetch-site': 'same-origin' });
    expect(done.status).toBe(200);
    expect((await grantOf(user.id))!.expiresAt).toBeNull();
  });

  it('refuses a disconnect and a sign-out from another origin: the grant and the session stay', async () => {
    const { user, agent, consent } = await atConsent();
    await agent.submit(consent, { decision: 'approve' });
    expect(await grantOf(user.id)).toBeDefined();
    const apps = await agent.navigate('/account/apps');
    const disconnect = form(apps, '/account/apps/disconnect');
    const signOut = form(apps, '/oauth/sign-out');

    await expectFormRefused(await post(server.issuer, disconnect.action, disconnect.fields, jar(agent), { 'sec-fetch-site': 'same-site' }), REFUSED);
    await expectFormRefused(await post(server.issuer, disconnect.action, disconnect.fields, jar(agent), { origin: 'http://127.0.0.1:3001' }), REFUSED);
    expect(await grantOf(user.id)).toBeDefined();

    await expectFormRefused(await post(server.issuer, signOut.action, signOut.fields, jar(agent), { 'sec-fetch-site': 'cross-site' }), REFUSED);
    await expectFormRefused(await post(server.issuer, signOut.action, signOut.fields, jar(agent), { origin: 'null' }), REFUSED);
    const still = await agent.navigate('/account/apps');
    expect('html' in still && still.status).toBe(200);
    expect('html' in still && still.html).toContain(user.email);

    // From Lyceum's own page both work.
    const gone = await post(server.issuer, disconnect.action, disconnect.fields, jar(agent), { 'sec-fetch-site': 'same-origin' });
    expect(gone.status).toBe(200);
    expect(await gone.text()).toContain('was disconnected');
    expect(await grantOf(user.id)).toBeUndefined();
  });

  describe('a token works only with the session it was made for', () => {
    it('refuses the victim’s session with a CSRF cookie and token taken from another signed-in session', async () => {
      const victim = await atConsent();
      const attacker = await atConsent();
      const cookies = jar(victim.agent);
      // The attacker plants its own CSRF secret beside the victim's session and submits its own token.
      cookies.set(csrfCookieName(server.deps.config), jar(attacker.agent).get(csrfCookieName(server.deps.config))!);
      const fields = { ...victim.consent.fields, _csrf: attacker.consent.fields._csrf!, decision: 'approve' };
      await expectFormRefused(await post(server.issuer, victim.consent.action, fields, cookies), EXPIRED);
      expect(await grantOf(victim.user.id)).toBeUndefined();
    });

    it('refuses the victim’s session with a CSRF cookie and token fetched without any session', async () => {
      const victim = await atConsent();
      const anonymous = new UserAgent(server.issuer);
      const anonymousToken = form(await anonymous.navigate('/oauth/sign-in'), '/oauth/sign-in').fields._csrf!;
      const cookies = jar(victim.agent);
      cookies.set(csrfCookieName(server.deps.config), jar(anonymous).get(csrfCookieName(server.deps.config))!);
      const fields = { ...victim.consent.fields, _csrf: anonymousToken, decision: 'approve' };
      await expectFormRefused(await post(server.issuer, victim.consent.action, fields, cookies), EXPIRED);
      expect(await grantOf(victim.user.id)).toBeUndefined();
    });

    it('rotates the CSRF secret at sign-in: the token of the sign-in page is worthless afterwards', async () => {
      const user = await server.addUser('owner');
      const agent = new UserAgent(server.issuer);
      const signIn = form(await agent.navigate(authorizeLink()), '/oauth/sign-in');
      const before = jar(agent).get(csrfCookieName(server.deps.config))!;

      const res = await agent.request(signIn.action, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...signIn.fields, email: user.email, password: user.password }).toString(),
      });
      expect(res.status).toBe(303);
      const cleared = res.headers.getSetCookie().find((c) => c.startsWith(`${csrfCookieName(server.deps.config)}=`));
      expect(cleared).toMatch(/Expires=Thu, 01 Jan 1970 00:00:00 GMT/);
      expect(jar(agent).has(csrfCookieName(server.deps.config))).toBe(false);

      const consent = form(await agent.navigate(res.headers.get('location')!), '/oauth/authorize/decision');
      expect(jar(agent).get(csrfCookieName(server.deps.config))).not.toBe(before);
      // The pre-sign-in token, even with its old secret put back, does not pass with the new session.
      const cookies = jar(agent);
      cookies.set(csrfCookieName(server.deps.config), before);
      await expectFormRefused(await post(server.issuer, consent.action, { ...consent.fields, _csrf: signIn.fields._csrf!, decision: 'approve' }, cookies), EXPIRED);
      await expectFormRefused(await post(server.issuer, consent.action, { ...consent.fields, _csrf: signIn.fields._csrf!, decision: 'approve' }, jar(agent)), EXPIRED);
      expect(await grantOf(user.id)).toBeUndefined();
      // The page's own token still works.
      expectCode(await post(server.issuer, consent.action, { ...consent.fields, decision: 'approve' }, jar(agent)));
    });
  });
});

/**
 * The CSRF protection is wired while the app is built, so each check here
 * starts its own server: the secret cookie's attributes, a sign-in that goes
 * through with the page's own token, and the refusals of a form sent without
 * it or from another origin.
 */

function postWithCookie(issuer: string, path: string, fields: Record<string, string>, cookie: string, headers: Record<string, string> = {}) {
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
      await expectFormRefused(await postWithCookie(server.issuer, signIn.action, { ...withoutToken, ...credentials }, cookie), 'The form expired or was not sent from this site.');
      // With the token but from another origin: refused before the token is looked at.
      await expectFormRefused(
        await postWithCookie(server.issuer, signIn.action, { ...signIn.fields, ...credentials }, cookie, { 'sec-fetch-site': 'cross-site' }),
        'This form was not sent from this site’s own page, so nothing was done.',
      );
      // The page's own token from the page's own origin: signed in.
      const ok = await postWithCookie(server.issuer, signIn.action, { ...signIn.fields, ...credentials }, cookie);
      expect(ok.status, (await ok.clone().text()).slice(0, 400)).toBe(303);
      expect(ok.headers.getSetCookie().some((line) => line.startsWith(`${sessionCookieName(server.deps.config)}=`))).toBe(true);
      expect(_csrf).toBeDefined();
    } finally {
      await server.close();
    }
  });
});
