/**
 * Cross-port CSRF in real headless Chromium. Browsers do not isolate cookies
 * by port: a page served by any other local program on 127.0.0.1 can write
 * cookies that Lyceum receives, and its form posts to Lyceum carry Lyceum's
 * SameSite=Lax cookies (another port is the same site). Here such a page, on a
 * real second listener, plants a CSRF cookie and token of its own and submits
 * Lyceum's forms; none of it may change anything.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { csrfCookieName, sessionCookieName } from '../../src/web/interaction/session.ts';
import { haveChromium, launchChromium, noteSkippedBrowserTests } from '../helpers/chromium.ts';
import { startListener, type LoopbackListener } from '../helpers/loopback-listener.ts';
import { authorizeUrl, pkcePair, registerPublicClient } from '../helpers/oauth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { parseForms, UserAgent, type FormInfo } from '../helpers/user-agent.ts';

noteSkippedBrowserTests('test/e2e/browser-csrf.test.ts');

const SCOPE = 'openid profile courses:read courses:write';

/** Another local program's web server: serves whatever page the test gives it. */
async function startAttackerSite(): Promise<{ origin: string; serve(html: string): string; close(): Promise<void> }> {
  const pages = new Map<string, string>();
  const server: Server = createServer((req, res) => {
    const html = pages.get(new URL(req.url ?? '/', 'http://127.0.0.1').pathname);
    if (!html) res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(html);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    serve(html) {
      const path = `/page-${pages.size + 1}`;
      pages.set(path, html);
      return `${origin}${path}`;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const attr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** The hostile page: writes a cookie for 127.0.0.1 with document.cookie, then auto-submits a form to Lyceum. */
function attackPage(cookie: string, action: string, fields: Record<string, string>): string {
  const inputs = Object.entries(fields)
    .map(([k, v]) => `<input type="hidden" name="${attr(k)}" value="${attr(v)}">`)
    .join('\n');
  return `<!doctype html><html lang="en"><title>Free stickers</title>
<form method="post" action="${attr(action)}">${inputs}</form>
<script>document.cookie = ${JSON.stringify(cookie)}; document.forms[0].submit();</script></html>`;
}

/** A CSRF cookie value and a token that go together, as another program can fetch them for itself. */
interface Pair {
  secret: string;
  token: string;
}

describe.skipIf(!haveChromium && process.env.CI !== 'true')('cross-port CSRF in headless Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  describe.each(STORE_KINDS)('%s store', (kind) => {
    let server: TestServer;
    let attackerSite: Awaited<ReturnType<typeof startAttackerSite>>;
    let clientId: string;
    let csrfCookie: string;
    const cleanup: (() => Promise<void>)[] = [];

    beforeAll(async () => {
      server = await startTestServer(kind);
      attackerSite = await startAttackerSite();
      csrfCookie = csrfCookieName(server.deps.config);
      clientId = await registerPublicClient(server.issuer, {
        client_name: 'Local CLI',
        application_type: 'native',
        redirect_uris: ['http://127.0.0.1/callback'],
      });
    });
    afterEach(async () => {
      for (const fn of cleanup.splice(0).reverse()) await fn();
    });
    afterAll(async () => {
      await attackerSite?.close();
      await server?.close();
    });

    const authorizeParams = (listener: LoopbackListener) => ({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: listener.redirectUri,
      scope: SCOPE,
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
      state: 'attacker-state',
    });

    /** A fresh browser profile and a loopback listener, closed after the test. */
    async function open(): Promise<{ context: BrowserContext; page: Page; listener: LoopbackListener }> {
      const context = await browser.newContext();
      cleanup.push(() => context.close());
      const listener = await startListener();
      cleanup.push(() => listener.close());
      const page = await context.newPage();
      page.setDefaultTimeout(5_000);
      return { context, page, listener };
    }

    /** The victim signs in through Lyceum's own form and ends on the consent page. */
    async function signInToConsent(page: Page, listener: LoopbackListener, user: { email: string; password: string }) {
      await page.goto(authorizeUrl(server.issuer, authorizeParams(listener)));
      await page.getByLabel('Email').fill(user.email);
      await page.getByLabel('Password').fill(user.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Allow', exact: true }).waitFor();
    }

    const csrfSecretOf = (agent: UserAgent) =>
      new Map(
        agent
          .cookieHeader()
          .split('; ')
          .map((c) => c.split('=') as [string, string]),
      ).get(csrfCookie)!;
    const formOn = (step: Awaited<ReturnType<UserAgent['navigate']>>, action: string): FormInfo => {
      const found = parseForms('html' in step ? step.html : '').find((f) => f.action === action);
      if (!found) throw new Error(`no form to ${action}`);
      return found;
    };

    /** A pair for no session: what any program gets from the sign-in page. */
    async function anonymousPair(): Promise<Pair> {
      const agent = new UserAgent(server.issuer);
      const signIn = formOn(await agent.navigate('/oauth/sign-in'), '/oauth/sign-in');
      return { secret: csrfSecretOf(agent), token: signIn.fields._csrf! };
    }

    /** A pair for the attacker's own signed-in session (a token is good for any form of its session). */
    async function attackerSessionPair(): Promise<Pair> {
      const attacker = await server.addUser('owner');
      const agent = new UserAgent(server.issuer);
      const signIn = formOn(await agent.navigate('/account/apps'), '/oauth/sign-in');
      const signOut = formOn(await agent.submit(signIn, { email: attacker.email, password: attacker.password }), '/oauth/sign-out');
      return { secret: csrfSecretOf(agent), token: signOut.fields._csrf! };
    }

    /**
     * Opens the attacker's page in the victim's browser and waits for its post
     * to Lyceum: refused with the 403 page, sent by Chromium as same-site.
     */
    async function expectAttackRefused(page: Page, cookie: string, path: string, fields: Record<string, string>): Promise<void> {
      const url = attackerSite.serve(attackPage(cookie, `${server.issuer}${path}`, fields));
      const isPost = (r: Request) => r.method() === 'POST' && r.url() === `${server.issuer}${path}`;
      const [response] = await Promise.all([page.waitForResponse((r) => isPost(r.request())), page.goto(url)]);
      const sent = await response.request().allHeaders();
      expect(sent['sec-fetch-site']).toBe('same-site');
      expect(response.status()).toBe(403);
      expect(response.headers()['location']).toBeUndefined();
      await page.getByRole('heading', { level: 1, name: 'Form not accepted' }).waitFor();
      expect(await page.locator('code').innerText()).toBe('invalid_csrf');
    }

    /** Both ways another page can plant a cookie: over Lyceum's own (when it has none) and on a narrower path, which wins. */
    const plantings = (pair: Pair, narrowPath: string) => [
      { name: 'path=/', cookie: `${csrfCookie}=${pair.secret}; path=/`, clearOwn: true },
      { name: `path=${narrowPath}`, cookie: `${csrfCookie}=${pair.secret}; path=${narrowPath}`, clearOwn: false },
    ];

    it('the user’s own consent click works: Chromium sends Sec-Fetch-Site: same-origin', async () => {
      const user = await server.addUser('owner');
      const { page, listener } = await open();
      await signInToConsent(page, listener, user);
      const decision = page.waitForRequest((r) => r.method() === 'POST' && new URL(r.url()).pathname === '/oauth/authorize/decision');
      const arrives = listener.nextCallback();
      await page.getByRole('button', { name: 'Allow', exact: true }).click();
      const sent = await (await decision).allHeaders();
      expect(sent['sec-fetch-site']).toBe('same-origin');
      // The page says no-referrer, so Chromium's Origin is "null": Sec-Fetch-Site is what proves the origin.
      expect(sent['origin']).toBe('null');
      const callback = await arrives;
      expect(callback.url.searchParams.get('code')).toMatch(/^\S{16,}$/);
      expect(callback.url.searchParams.get('state')).toBe('attacker-state');
      expect(await server.deps.store.grants.find(user.id, clientId)).toBeDefined();
    });

    it('a page on another loopback port cannot approve the consent form: no code, no grant', async () => {
      const victim = await server.addUser('owner');
      const { context, page, listener } = await open();
      await signInToConsent(page, listener, victim);
      for (const pair of [await anonymousPair(), await attackerSessionPair()]) {
        for (const planting of plantings(pair, '/oauth')) {
          if (planting.clearOwn) await context.clearCookies({ name: csrfCookie });
          await expectAttackRefused(page, planting.cookie, '/oauth/authorize/decision', { ...authorizeParams(listener), _csrf: pair.token, decision: 'approve' });
        }
      }
      expect(listener.all).toEqual([]);
      expect(await server.deps.store.grants.find(victim.id, clientId)).toBeUndefined();
      // Still signed in as themselves.
      await page.goto(`${server.issuer}/account/apps`);
      await page.getByText(victim.email).waitFor();
    });

    it('a page on another loopback port cannot disconnect an app or sign the user out', async () => {
      const victim = await server.addUser('owner');
      const { context, page, listener } = await open();
      await signInToConsent(page, listener, victim);
      const arrives = listener.nextCallback();
      await page.getByRole('button', { name: 'Allow', exact: true }).click();
      await arrives;
      const grant = await server.deps.store.grants.find(victim.id, clientId);
      expect(grant).toBeDefined();

      for (const pair of [await anonymousPair(), await attackerSessionPair()]) {
        for (const planting of plantings(pair, '/account')) {
          if (planting.clearOwn) await context.clearCookies({ name: csrfCookie });
          await expectAttackRefused(page, planting.cookie, '/account/apps/disconnect', { client_id: clientId, _csrf: pair.token });
        }
        for (const planting of plantings(pair, '/oauth')) {
          if (planting.clearOwn) await context.clearCookies({ name: csrfCookie });
          await expectAttackRefused(page, planting.cookie, '/oauth/sign-out', { _csrf: pair.token });
        }
      }
      expect(await server.deps.store.grants.find(victim.id, clientId)).toEqual(grant);
      expect((await context.cookies(server.issuer)).map((c) => c.name)).toContain(sessionCookieName(server.deps.config));
      await page.goto(`${server.issuer}/account/apps`);
      await page.getByText(victim.email).waitFor();
      expect(await page.getByRole('heading', { name: 'Local CLI' }).count()).toBe(1);
    });

    it('a page on another loopback port cannot sign the browser in to the attacker’s account', async () => {
      const attacker = await server.addUser('owner');
      const { context, page } = await open();
      const pair = await anonymousPair();
      for (const planting of plantings(pair, '/oauth')) {
        if (planting.clearOwn) await context.clearCookies({ name: csrfCookie });
        await expectAttackRefused(page, planting.cookie, '/oauth/sign-in', { _csrf: pair.token, return_to: '/account/apps', email: attacker.email, password: attacker.password });
      }
      expect((await context.cookies(server.issuer)).map((c) => c.name)).not.toContain(sessionCookieName(server.deps.config));
      await page.goto(`${server.issuer}/account/apps`);
      await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    });
  });
});
