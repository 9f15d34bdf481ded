/**
 * The authorization flow in real headless Chromium, the way a CLI tool runs
 * it: a loopback listener on a port of its own (RFC 8252 §7.3), the user's
 * browser on the authorize URL, sign-in, consent, and the redirect back.
 */
import { randomBytes } from 'node:crypto';
import { type Browser, type BrowserContext, type Page, type Response } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { haveChromium, launchChromium, noteSkippedBrowserTests } from '../helpers/chromium.ts';
import { startListener } from '../helpers/loopback-listener.ts';
import { authorizeUrl, pkcePair, postForm, registerPublicClient } from '../helpers/oauth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { csrfCookieName, sessionCookieName } from '../../src/web/interaction/session.ts';

noteSkippedBrowserTests('test/e2e/browser-flow.test.ts');

const CLIENT_NAME = 'Browser Flow CLI';
const SCOPE = 'openid profile courses:read';
/** The plain words the consent page must show for SCOPE. */
const SCOPE_WORDS = ['Confirm who you are (sign you in)', 'See your name and profile details', 'See courses, including drafts'];

const randomState = () => randomBytes(16).toString('base64url');
const isSignInPost = (r: Response) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/oauth/sign-in';

describe.skipIf(!haveChromium && process.env.CI !== 'true')('authorization in headless Chromium', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  describe.each(STORE_KINDS)('%s store', (kind) => {
    let server: TestServer;
    let clientId: string;
    let user: { email: string; password: string };
    const cleanup: (() => Promise<void>)[] = [];

    beforeAll(async () => {
      server = await startTestServer(kind);
      clientId = await registerPublicClient(server.issuer, {
        client_name: CLIENT_NAME,
        application_type: 'native',
        redirect_uris: ['http://127.0.0.1/callback'],
      });
      user = await server.addUser('owner');
    });
    afterEach(async () => {
      for (const fn of cleanup.splice(0).reverse()) await fn();
    });
    afterAll(async () => {
      await server?.close();
    });

    /** A fresh browser profile and loopback listener for one flow; both closed after the test. */
    async function openFlow() {
      const context: BrowserContext = await browser.newContext();
      cleanup.push(() => context.close());
      const listener = await startListener();
      cleanup.push(() => listener.close());
      const page: Page = await context.newPage();
      page.setDefaultTimeout(5_000);
      const serverErrors: string[] = [];
      const pageProblems: string[] = [];
      page.on('response', (r) => {
        if (r.status() >= 500) serverErrors.push(`${r.status()} ${r.request().method()} ${r.url()}`);
      });
      page.on('pageerror', (e) => pageProblems.push(`pageerror: ${e.message}`));
      // CSP violations and script errors on Lyceum's pages. HTTP statuses are checked above and in the
      // tests (the 401 of a failed sign-in, the browser's own /favicon.ico 404), not through the console.
      page.on('console', (m) => {
        const fromLyceum = new URL(m.location().url || server.issuer).origin === server.issuer;
        if (m.type() === 'error' && fromLyceum && !m.text().startsWith('Failed to load resource')) {
          pageProblems.push(`console: ${m.text()} @ ${m.location().url}`);
        }
      });
      const { verifier, challenge } = pkcePair();
      const state = randomState();
      const url = authorizeUrl(server.issuer, {
        response_type: 'code',
        client_id: clientId,
        redirect_uri: listener.redirectUri,
        scope: SCOPE,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state,
      });
      return { context, page, listener, verifier, state, url, serverErrors, pageProblems };
    }

    async function fillSignIn(page: Page, email: string, password: string): Promise<Response> {
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(password);
      const [response] = await Promise.all([page.waitForResponse(isSignInPost), page.getByRole('button', { name: 'Sign in' }).click()]);
      return response;
    }

    async function expectConsentPage(page: Page): Promise<void> {
      const h1 = page.getByRole('heading', { level: 1 });
      await h1.filter({ hasText: 'Allow' }).waitFor();
      expect(await h1.textContent()).toContain(CLIENT_NAME);
    }

    it('approve: sign in, consent, code on the loopback listener, token exchange', async () => {
      const { page, listener, verifier, state, url, serverErrors, pageProblems } = await openFlow();

      const first = await page.goto(url);
      expect(first?.status()).toBe(200);
      await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
      expect(await page.getByText(CLIENT_NAME).isVisible()).toBe(true);

      const signIn = await fillSignIn(page, user.email, user.password);
      expect(signIn.status()).toBe(303);
      await expectConsentPage(page);
      expect(new URL(page.url()).pathname).toBe('/oauth/authorize');

      // What the user decides on: who asks, where they go back to, and what it may do, in plain words.
      expect(await page.locator('.client-name').innerText()).toBe(CLIENT_NAME);
      expect(await page.getByText(user.email).isVisible()).toBe(true);
      expect(await page.getByText(`127.0.0.1:${listener.port}`, { exact: true }).isVisible()).toBe(true);
      for (const words of SCOPE_WORDS) expect(await page.getByText(words).isVisible(), words).toBe(true);
      await page.screenshot({ path: '/tmp/consent.png', fullPage: true });

      const callbackArrives = listener.nextCallback();
      await page.locator('button[name=decision][value=approve]').click();
      const callback = await callbackArrives;
      expect(callback.method).toBe('GET');
      expect(callback.url.pathname).toBe('/callback');
      const params = callback.url.searchParams;
      expect(params.get('error')).toBeNull();
      expect(params.get('state')).toBe(state);
      expect(params.get('iss')).toBe(server.issuer);
      const code = params.get('code');
      expect(code).toMatch(/^\S{16,}$/);

      // The browser ends on the listener's own page.
      await page.waitForURL((u) => u.port === String(listener.port) && u.pathname === '/callback');
      expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('You can close this window');

      const token = await postForm(`${server.issuer}/api/oauth/token`, {
        grant_type: 'authorization_code',
        code: code!,
        redirect_uri: listener.redirectUri,
        client_id: clientId,
        code_verifier: verifier,
      });
      expect(token.status, token.text).toBe(200);
      expect(token.headers.get('cache-control')).toMatch(/\bno-store\b/);
      expect(token.headers.get('content-type')).toMatch(/^application\/json/);
      expect(String(token.json.token_type).toLowerCase()).toBe('bearer');
      expect(token.json.access_token).toEqual(expect.any(String));
      expect((token.json.access_token as string).length).toBeGreaterThan(20);
      expect(token.json.refresh_token).toEqual(expect.any(String));
      expect(token.json.scope).toBe(SCOPE);

      // The code is single use.
      const replay = await postForm(`${server.issuer}/api/oauth/token`, {
        grant_type: 'authorization_code',
        code: code!,
        redirect_uri: listener.redirectUri,
        client_id: clientId,
        code_verifier: verifier,
      });
      expect(replay.status).toBe(400);
      expect(replay.json.error).toBe('invalid_grant');

      expect(serverErrors).toEqual([]);
      expect(pageProblems).toEqual([]);
    });

    it('deny: the listener receives error=access_denied with state and iss', async () => {
      const { page, listener, state, url, serverErrors, pageProblems } = await openFlow();
      await page.goto(url);
      expect((await fillSignIn(page, user.email, user.password)).status()).toBe(303);
      await expectConsentPage(page);

      const callbackArrives = listener.nextCallback();
      await page.getByRole('button', { name: 'Deny' }).click();
      const callback = await callbackArrives;
      const params = callback.url.searchParams;
      expect(callback.url.pathname).toBe('/callback');
      expect(params.get('error')).toBe('access_denied');
      expect(params.get('state')).toBe(state);
      expect(params.get('iss')).toBe(server.issuer);
      expect(params.get('code')).toBeNull();
      await page.waitForURL((u) => u.port === String(listener.port) && u.pathname === '/callback');

      expect(serverErrors).toEqual([]);
      expect(pageProblems).toEqual([]);
    });

    it('a wrong password shows the form again with an error; the right one then works', async () => {
      const { page, listener, state, url, serverErrors, pageProblems } = await openFlow();
      await page.goto(url);

      const failed = await fillSignIn(page, user.email, 'not-the-password');
      expect(failed.status()).toBe(401);
      const alert = page.getByRole('alert');
      await alert.waitFor();
      expect(await alert.innerText()).toMatch(/email or password is incorrect/i);
      expect(await page.getByRole('heading', { level: 1, name: 'Sign in' }).isVisible()).toBe(true);
      // The email is kept, marked invalid and tied to the message; the password is not echoed.
      const email = page.getByLabel('Email');
      expect(await email.inputValue()).toBe(user.email);
      expect(await email.getAttribute('aria-invalid')).toBe('true');
      expect(await email.getAttribute('aria-describedby')).toBe(await alert.getAttribute('id'));
      expect(await page.getByLabel('Password').inputValue()).toBe('');
      expect(await page.content()).not.toContain('not-the-password');
      expect(await page.context().cookies()).not.toContainEqual(expect.objectContaining({ name: sessionCookieName(server.deps.config) }));

      const ok = await fillSignIn(page, user.email, user.password);
      expect(ok.status()).toBe(303);
      await expectConsentPage(page);
      const callbackArrives = listener.nextCallback();
      await page.getByRole('button', { name: 'Allow', exact: true }).click();
      const params = (await callbackArrives).url.searchParams;
      expect(params.get('code')).toBeTruthy();
      expect(params.get('state')).toBe(state);
      expect(params.get('iss')).toBe(server.issuer);

      expect(serverErrors).toEqual([]);
      expect(pageProblems).toEqual([]);
    });

    it('sign-in and consent pages: language, headings, labels, button names, no framing, cookie flags', async () => {
      const { context, page, url, serverErrors, pageProblems } = await openFlow();

      async function checkPage(response: Response | null, name: string) {
        expect(response, name).not.toBeNull();
        expect(response!.status(), name).toBe(200);
        const headers = response!.headers();
        expect(headers['x-frame-options'], name).toBe('DENY');
        expect(headers['content-security-policy'], name).toMatch(/(^|;)\s*frame-ancestors 'none'\s*(;|$)/);
        expect(headers['cache-control'], name).toMatch(/\bno-store\b/);

        expect(await page.locator('html').getAttribute('lang'), name).toMatch(/^[a-z]{2,3}(-[A-Za-z0-9]+)*$/);
        expect((await page.title()).trim(), name).not.toBe('');
        // The stylesheet is allowed by the CSP and applied: the primary button is filled with the accent colour.
        const primaryBackground = await page.locator('button.primary').evaluate((el) => getComputedStyle(el).backgroundColor);
        expect(primaryBackground, `${name}: stylesheet applied`).toBe('rgb(47, 91, 211)');
        expect(await page.locator('h1').count(), name).toBe(1);
        expect(await page.getByRole('heading', { level: 1 }).count(), name).toBe(1);

        // Every visible form control has a label of its own.
        const controls = page.locator('input:not([type=hidden]), select, textarea');
        for (let i = 0; i < (await controls.count()); i++) {
          const control = controls.nth(i);
          const labels = await control.evaluate((el) => [...((el as HTMLInputElement).labels ?? [])].map((l) => l.textContent?.trim() ?? ''));
          expect(labels.filter(Boolean).length, `${name}: ${await control.getAttribute('name')} has a label`).toBeGreaterThan(0);
        }
        // Every button and textbox has an accessible name in the accessibility tree.
        const tree = await page.locator('main').ariaSnapshot();
        for (const line of tree.split('\n')) {
          if (/^\s*- (button|textbox|checkbox|radio|combobox)\b/.test(line)) expect(line, `${name}: accessible name`).toMatch(/- \w+ "[^"]+"/);
        }
        const buttons = page.getByRole('button');
        for (let i = 0; i < (await buttons.count()); i++) {
          expect((await buttons.nth(i).innerText()).trim(), `${name}: button text`).not.toBe('');
        }
      }

      const signInResponse = await page.goto(url);
      await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
      await checkPage(signInResponse, 'sign-in');
      expect(await page.getByLabel('Email').getAttribute('name')).toBe('email');
      expect(await page.getByLabel('Password').getAttribute('name')).toBe('password');
      expect(await page.getByLabel('Email').getAttribute('autocomplete')).toBe('username');
      expect(await page.getByLabel('Password').getAttribute('autocomplete')).toBe('current-password');
      expect(await page.getByRole('button', { name: 'Sign in' }).count()).toBe(1);
      await page.screenshot({ path: '/tmp/sign-in.png', fullPage: true });

      await page.getByLabel('Email').fill(user.email);
      await page.getByLabel('Password').fill(user.password);
      const [consentResponse] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'GET' && new URL(r.url()).pathname === '/oauth/authorize'),
        page.getByRole('button', { name: 'Sign in' }).click(),
      ]);
      await expectConsentPage(page);
      await checkPage(consentResponse, 'consent');
      expect(await page.getByRole('button', { name: 'Allow', exact: true }).count()).toBe(1);
      expect(await page.getByRole('button', { name: 'Deny' }).count()).toBe(1);

      const cookies = await context.cookies(server.issuer);
      expect(cookies.map((c) => c.name).sort()).toEqual(expect.arrayContaining([csrfCookieName(server.deps.config), sessionCookieName(server.deps.config)]));
      for (const c of cookies) {
        expect(c.httpOnly, `${c.name} HttpOnly`).toBe(true);
        expect(c.sameSite, `${c.name} SameSite`).toBe('Lax');
        expect(c.path, `${c.name} Path`).toBe('/');
      }

      // The consent page refuses to be framed: in a frame on another site, Chromium shows none of it.
      const framer = await context.newPage();
      const otherSite = `http://localhost:${new URL(server.issuer).port}`;
      await framer.route(`${otherSite}/framer`, (route) => route.fulfill({ contentType: 'text/html', body: `<!doctype html><iframe src="${page.url()}"></iframe>` }));
      await framer.goto(`${otherSite}/framer`, { waitUntil: 'load' });
      const frame = framer.frames().find((f) => f !== framer.mainFrame());
      expect(frame).toBeDefined();
      expect(await frame!.locator('form').count()).toBe(0);
      await framer.close();

      expect(serverErrors).toEqual([]);
      expect(pageProblems).toEqual([]);
    });
  });
});
