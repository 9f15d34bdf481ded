/**
 * Consent a person shapes, in real headless Chromium without scripts:
 * untick a scope, choose an hour, allow; see the end on /account/apps after
 * it passed, extend it, then disconnect.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveChromium, launchChromium, noteSkippedBrowserTests } from '../helpers/chromium.ts';
import { startListener } from '../helpers/loopback-listener.ts';
import { authorizeUrl, pkcePair, postForm, registerPublicClient } from '../helpers/oauth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

noteSkippedBrowserTests('test/e2e/browser-consent-choices.test.ts');

describe.skipIf(!haveChromium).each(STORE_KINDS)('consent choices in Chromium (%s)', (kind) => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    server = await startTestServer(kind);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('untick, an hour, allow; the end shows on /account/apps once passed; extend, then disconnect', async () => {
    const user = await server.addUser('owner');
    const clientId = await registerPublicClient(server.issuer, { client_name: 'Course Agent' });
    const listener = await startListener();
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    const thaw = server.freeze();
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
          state: 's1',
        }),
      );
      await page.getByLabel('Email').fill(user.email);
      await page.getByLabel('Password').fill(user.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: /Allow Course Agent/ }).waitFor();

      await page.getByRole('checkbox', { name: /Create, change and delete courses/ }).uncheck();
      expect(await page.getByRole('checkbox', { name: /Confirm who you are/ }).isDisabled()).toBe(true);
      await page.getByLabel('How long it may act for you').selectOption('1h');
      await page.getByRole('button', { name: 'Allow', exact: true }).click();
      const callback = await listener.nextCallback();
      const token = await postForm(`${server.issuer}/api/oauth/token`, {
        grant_type: 'authorization_code',
        code: callback.url.searchParams.get('code')!,
        redirect_uri: listener.redirectUri,
        client_id: clientId,
        code_verifier: verifier,
      });
      expect(token.json.scope).toBe('openid courses:read');

      server.advance(3600_000 + 1000);
      const refused = await postForm(`${server.issuer}/api/oauth/token`, { grant_type: 'refresh_token', refresh_token: token.json.refresh_token as string, client_id: clientId });
      expect(refused.json.error).toBe('invalid_grant');

      await page.goto(`${server.issuer}/account/apps`);
      await expect.poll(() => page.locator('.access-end').textContent()).toMatch(/^Access ended /);
      await page.getByLabel('New end').selectOption('1d');
      await page.getByRole('button', { name: 'Extend access of Course Agent' }).click();
      expect(await page.getByRole('status').textContent()).toContain('was extended');
      expect(await page.locator('.access-end').textContent()).toMatch(/^Access ends /);
      const again = await postForm(`${server.issuer}/api/oauth/token`, { grant_type: 'refresh_token', refresh_token: token.json.refresh_token as string, client_id: clientId });
      expect(again.status, again.text).toBe(200);

      await page.getByRole('button', { name: 'Disconnect Course Agent' }).click();
      expect(await page.getByRole('status').textContent()).toContain('was disconnected');
      const after = await postForm(`${server.issuer}/api/oauth/token`, { grant_type: 'refresh_token', refresh_token: again.json.refresh_token as string, client_id: clientId });
      expect(after.json.error).toBe('invalid_grant');
    } finally {
      thaw();
      await context.close();
      await listener.close();
    }
  });
});
