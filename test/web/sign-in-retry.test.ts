/**
 * The page a failed sign-in answers with, over real HTTP: the same form
 * again, never cached, naming the app the authorization is for (whatever the
 * order of the request's parameters), echoing the email that was sent and
 * nothing in its place when none was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, pkcePair, register, registerPublicClient } from '../helpers/oauth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { asPage, parseForms, UserAgent, type Page } from '../helpers/user-agent.ts';

const REDIRECT = 'http://127.0.0.1:61239/callback';
const INCORRECT = 'The email or password is incorrect.';

let nobody = 0;
/** An email without an account, new each time, so no test meets another's wait. */
const unknownEmail = () => `nobody-${++nobody}@retry.test`;

const signInForm = (html: string) => parseForms(html).find((f) => f.action === '/oauth/sign-in');
const errorMessage = (html: string) => /<p class="error"[^>]*>([\s\S]*?)<\/p>/.exec(html)?.[1]?.trim();
const emailValue = (html: string) => /<input id="email"[^>]*value="([^"]*)"/.exec(html)?.[1];
/** The line above the form that says which app asks, or undefined. */
const appLine = (html: string) => /<p><strong>([^<]*)<\/strong> wants to connect to your Lyceum account\. Sign in to continue\.<\/p>/.exec(html)?.[1];

/** The sign-in form again: 401, HTML, never cached, the message, no session. */
function expectRefused(page: Page) {
  expect({ status: page.status, message: errorMessage(page.html) }, page.html.slice(0, 400)).toEqual({ status: 401, message: INCORRECT });
  expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
  // The page carries a form token: no cache may keep it (RFC 9111 §5.2.2.5).
  expect(page.headers.get('cache-control')).toBe('no-store');
  expect(page.headers.get('retry-after')).toBeNull();
  expect(page.headers.getSetCookie().some((line) => /_session=[^;]/.test(line))).toBe(false);
  expect(signInForm(page.html)).toBeDefined();
}

describe.each(STORE_KINDS)('the page of a failed sign-in (%s)', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    // Three free failures: a fourth failure against one account would be refused with 429.
    server = await startTestServer(kind, { SIGN_IN_FREE_FAILURES: '3' });
  });
  afterAll(() => server?.close());

  /** A browser on the bare sign-in page that submits its form with these fields. */
  async function submitSignIn(fields: Record<string, string>, agent = new UserAgent(server.issuer)) {
    const form = signInForm(asPage(await agent.navigate('/oauth/sign-in')).html)!;
    return asPage(await agent.submit(form, fields));
  }

  it('sends the sign-in form itself with no-store', async () => {
    const res = await new UserAgent(server.issuer).request('/oauth/sign-in');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(signInForm(await res.text())).toBeDefined();
  });

  it('names the app the authorization is for again after a wrong password, and keeps the return to its request', async () => {
    const clientId = await registerPublicClient(server.issuer, { client_name: 'Retry Planner', redirect_uris: [REDIRECT] });
    const user = await server.addUser('student');
    const agent = new UserAgent(server.issuer);
    const link = authorizeUrl(server.issuer, {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      scope: 'openid',
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
      state: 'retry',
    });
    const first = asPage(await agent.navigate(link));
    expect(appLine(first.html)).toBe('Retry Planner');
    const form = signInForm(first.html)!;

    const retry = asPage(await agent.submit(form, { email: user.email, password: 'not-the-password' }));
    expectRefused(retry);
    expect(appLine(retry.html)).toBe('Retry Planner');
    expect(emailValue(retry.html)).toBe(user.email);
    expect(signInForm(retry.html)!.fields.return_to).toBe(form.fields.return_to);
  });

  it('names the app when client_id is the first parameter of the authorization request', async () => {
    const clientId = await registerPublicClient(server.issuer, { client_name: 'Order Agnostic', redirect_uris: [REDIRECT] });
    const returnTo = `/oauth/authorize?${new URLSearchParams({ client_id: clientId, response_type: 'code', redirect_uri: REDIRECT, scope: 'openid' }).toString()}`;
    const retry = await submitSignIn({ return_to: returnTo, email: unknownEmail(), password: 'not-the-password' });
    expectRefused(retry);
    expect(appLine(retry.html)).toBe('Order Agnostic');
    expect(signInForm(retry.html)!.fields.return_to).toBe(returnTo);
  });

  it('says "An app" for an app registered without a name', async () => {
    const reg = await register(server.issuer, { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
    expect(reg.status).toBe(201);
    const returnTo = `/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: reg.json.client_id as string }).toString()}`;
    const retry = await submitSignIn({ return_to: returnTo, email: unknownEmail(), password: 'not-the-password' });
    expectRefused(retry);
    expect(appLine(retry.html)).toBe('An app');
  });

  it('names no app when the return is not an authorization request of a registered app', async () => {
    for (const returnTo of ['/account/apps', '/oauth/authorize?response_type=code&scope=openid', '/oauth/authorize?client_id=no-such-client']) {
      const retry = await submitSignIn({ return_to: returnTo, email: unknownEmail(), password: 'not-the-password' });
      expectRefused(retry);
      expect(retry.html).not.toContain('wants to connect');
    }
  });

  it('answers a form without an email with an empty email field, and counts it against no account', async () => {
    // More forms than the free failures: were they counted against one account, the last would wait.
    for (let i = 0; i < 4; i++) {
      const agent = new UserAgent(server.issuer);
      const form = signInForm(asPage(await agent.navigate('/oauth/sign-in')).html)!;
      const retry = asPage(await agent.submit(form, { password: 'some-password' }));
      expectRefused(retry);
      expect(emailValue(retry.html)).toBe('');
    }
  });
});
