/**
 * Every page a person meets, walked in real headless Chromium with
 * JavaScript off (each step must work as a plain form), and each page as
 * it was served checked by axe-core: no violation of any rule it runs by
 * default (WCAG 2.x A and AA, and its best practices). The pages are the
 * same on both stores, so the walk runs on one.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/demo/seed.ts';
import { haveChromium, launchChromium, noteSkippedBrowserTests } from '../helpers/chromium.ts';
import { registerDeviceClient, startDevice } from '../helpers/device.ts';
import { startListener } from '../helpers/loopback-listener.ts';
import { authorizeUrl, pkcePair, postForm, registerPublicClient } from '../helpers/oauth.ts';
import { mcpPost, resultOf, toolCall } from '../helpers/mcp.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

noteSkippedBrowserTests('test/e2e/browser-accessibility.test.ts');

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

type Violation = { id: string; impact: string; help: string; nodes: { html: string }[] };

describe.skipIf(!haveChromium)('every page, without JavaScript, passes axe-core', () => {
  let server: TestServer;
  let browser: Browser;
  let walk: BrowserContext;
  let page: Page;
  let auditor: Page;
  /** Each page checked, with what axe found on it. */
  const audited: { name: string; violations: Violation[] }[] = [];

  beforeAll(async () => {
    server = await startTestServer(STORE_KINDS[0]!);
    await seedDemo(server.deps.store);
    browser = await launchChromium();
    walk = await browser.newContext({ javaScriptEnabled: false });
    page = await walk.newPage();
    // axe runs as a script, so the pages are checked in a second page that has scripts on, as they were served to the first.
    auditor = await (await browser.newContext({ bypassCSP: true })).newPage();
    await auditor.goto(`${server.issuer}/`);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** Checks the page the walk shows now, exactly as served, on the same origin (so its stylesheet applies). */
  async function audit(name: string): Promise<void> {
    const html = await page.content();
    await auditor.setContent(html, { waitUntil: 'load' });
    await auditor.evaluate(AXE_SOURCE);
    const violations = await auditor.evaluate(async () => {
      const axe = (globalThis as unknown as { axe: { run: (context: Document, options: object) => Promise<{ violations: Violation[] }> } }).axe;
      return (await axe.run(document, { resultTypes: ['violations'] })).violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ html: n.html })) }));
    });
    audited.push({ name, violations });
  }

  it('walks the school, sign-in, consent, the device page, connected apps and the error pages, each working as a plain form', async () => {
    const user = await server.addUser('owner');
    await page.goto(`${server.issuer}/`);
    await audit('home, signed out');
    await page.getByRole('link', { name: 'Python Foundations' }).click();
    await page.getByRole('heading', { level: 1, name: 'Python Foundations' }).waitFor();
    await audit('a course');
    await page.goto(`${server.issuer}/courses/no-such-course`);
    await audit('a course that does not exist');

    // The code flow: sign-in (once wrong), consent, back to the app.
    const clientId = await registerPublicClient(server.issuer, { client_name: 'Course Agent' });
    const listener = await startListener();
    try {
      const { verifier, challenge } = pkcePair();
      await page.goto(
        authorizeUrl(server.issuer, {
          response_type: 'code',
          client_id: clientId,
          redirect_uri: listener.redirectUri,
          scope: 'openid courses:read courses:write',
          code_challenge: challenge,
          code_challenge_method: 'S256',
          state: 's',
        }),
      );
      await audit('sign-in');
      await page.getByLabel('Email').fill(user.email);
      await page.getByLabel('Password').fill('not the password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').waitFor();
      await audit('sign-in, refused');
      await page.getByLabel('Password').fill(user.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: /Allow Course Agent/ }).waitFor();
      await audit('consent');
      await page.getByRole('button', { name: 'Allow', exact: true }).click();
      const callback = await listener.nextCallback();
      const token = await postForm(`${server.issuer}/api/oauth/token`, {
        grant_type: 'authorization_code',
        code: callback.url.searchParams.get('code')!,
        redirect_uri: listener.redirectUri,
        client_id: clientId,
        code_verifier: verifier,
      });
      expect(token.status, token.text).toBe(200);
      // Something for the app's card to show under "What it did recently": a write through an MCP tool.
      const made = await mcpPost(server.issuer, toolCall('create_record', { area: 'courses', values: { title: 'Made by the agent' } }), {
        authorization: `Bearer ${token.json.access_token as string}`,
      });
      expect(resultOf(made).isError ?? false).toBe(false);
    } finally {
      await listener.close();
    }

    // The device page: a wrong code, then the right one, consent, done.
    const device = await startDevice(server.issuer, await registerDeviceClient(server.issuer));
    await page.goto(`${server.issuer}/oauth/device`);
    await audit('device code entry');
    await page.getByLabel(/code/i).fill('BBBB-BBBB');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('alert').waitFor();
    await audit('device code entry, refused');
    await page.getByLabel(/code/i).fill(device.user_code);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: /Allow Remote agent/ }).waitFor();
    await audit('device consent');
    await page.getByRole('button', { name: 'Allow', exact: true }).click();
    await page.getByRole('heading', { name: /allowed|approved|done|connected/i }).waitFor();
    await audit('device done');

    // Connected apps: the list with its activity, extend, disconnect.
    await page.goto(`${server.issuer}/account/apps`);
    await page.getByText('What it did recently').first().click();
    expect(await page.locator('li.app', { hasText: 'Course Agent' }).locator('details.activity').textContent()).toMatch(/created courses crs_\S+ \(title\) with create_record/);
    await audit('connected apps');
    await page.getByLabel('New end').first().selectOption('1d');
    await page.getByRole('button', { name: 'Extend access of Course Agent' }).click();
    expect(await page.getByRole('status').textContent()).toContain('was extended');
    await audit('connected apps, extended');
    await page.getByRole('button', { name: 'Disconnect Course Agent' }).click();
    expect(await page.getByRole('status').textContent()).toContain('was disconnected');
    await audit('connected apps, disconnected');
    await page.goto(`${server.issuer}/`);
    await audit('home, signed in');

    // A request no app should send: the readable error page.
    await page.goto(
      authorizeUrl(server.issuer, {
        response_type: 'code',
        client_id: 'lyc_unknown',
        redirect_uri: 'http://127.0.0.1/cb',
        scope: 'openid',
        code_challenge: 'x'.repeat(43),
        code_challenge_method: 'S256',
      }),
    );
    await audit('error page');

    expect(audited.map((a) => a.name)).toHaveLength(15);
    expect(audited.filter((a) => a.violations.length > 0)).toEqual([]);
  });
});
