/**
 * The connected-apps page in real headless Chromium: a person signs in, sees
 * the apps holding access to their account, and disconnects one.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveChromium, launchChromium, noteSkippedBrowserTests } from '../helpers/chromium.ts';
import { authorizeUrl, pkcePair, postForm, registerPublicClient } from '../helpers/oauth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { UserAgent } from '../helpers/user-agent.ts';

noteSkippedBrowserTests('test/e2e/browser-connected-apps.test.ts');

describe.skipIf(!haveChromium).each(STORE_KINDS)('connected apps in Chromium (%s)', (kind) => {
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

  async function connectApp(user: { email: string; password: string }, name: string): Promise<string> {
    const clientId = await registerPublicClient(server.issuer, { client_name: name });
    const { verifier, challenge } = pkcePair();
    const redirectUri = 'http://127.0.0.1:45678/callback';
    const callback = await new UserAgent(server.issuer).authorize(
      authorizeUrl(server.issuer, {
        response_type: 'code',
        client_id: clientId,
        redirect_uri: redirectUri,
        scope: 'openid courses:read',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: 'x',
      }),
      user,
    );
    const token = await postForm(`${server.issuer}/api/oauth/token`, {
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code')!,
      redirect_uri: redirectUri,
      client_id: clientId,
      code_verifier: verifier,
    });
    return token.json.access_token as string;
  }

  it('signs in, lists the connected app, and Disconnect revokes its access', async () => {
    const user = await server.addUser('lecturer');
    const accessToken = await connectApp(user, 'Quiz Builder');
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await page.goto(`${server.issuer}/account/apps`);
      await page.getByLabel('Email').fill(user.email);
      await page.getByLabel('Password').fill(user.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${server.issuer}/account/apps`);

      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Connected apps');
      expect(await page.getByRole('heading', { name: 'Quiz Builder' }).count()).toBe(1);
      expect(await page.locator('html').getAttribute('lang')).toBe('en');

      // Reachable by keyboard, named for the app it disconnects.
      const disconnect = page.getByRole('button', { name: 'Disconnect Quiz Builder' });
      await disconnect.focus();
      await page.keyboard.press('Enter');
      await page.getByRole('status').waitFor();
      expect(await page.getByRole('status').textContent()).toContain('was disconnected');
      expect(await page.getByRole('heading', { name: 'Quiz Builder' }).count()).toBe(0);

      const info = await fetch(`${server.issuer}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } });
      expect(info.status).toBe(401);
    } finally {
      await context.close();
    }
  });
});
