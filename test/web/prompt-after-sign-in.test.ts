/**
 * The prompt parameter on the browser's side of /oauth/authorize (OIDC Core
 * §3.1.2.1), stated by hand: which prompt values the sign-in page carries
 * back to the request once the user has signed in (login is met by that
 * sign-in, the others are kept as sent), login beside consent, and an empty
 * prompt, which asks for nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerClient } from '../helpers/flow.ts';
import { authorizeUrl, pkcePair, registerPublicClient } from '../helpers/oauth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { asPage, asRedirect, parseForms, UserAgent } from '../helpers/user-agent.ts';

const REDIRECT = 'http://127.0.0.1:61239/callback';

const formTo = (html: string, action: string) => parseForms(html).find((f) => f.action === action);
const signInForm = (html: string) => formTo(html, '/oauth/sign-in');
const consentForm = (html: string) => formTo(html, '/oauth/authorize/decision');

describe.each(STORE_KINDS)('prompt around sign-in (%s)', (kind) => {
  let server: TestServer;
  let clientId: string;

  beforeAll(async () => {
    server = await startTestServer(kind);
    clientId = await registerPublicClient(server.issuer, { client_name: 'Prompt Probe', redirect_uris: ['http://127.0.0.1/callback'] });
  });
  afterAll(() => server?.close());

  /** The fields of an authorization request of this client, with these added. */
  const fields = (extra: Record<string, string>, client = clientId): Record<string, string> => ({
    response_type: 'code',
    client_id: client,
    redirect_uri: REDIRECT,
    scope: 'courses:read',
    code_challenge: pkcePair().challenge,
    code_challenge_method: 'S256',
    state: 'st-prompt',
    ...extra,
  });

  /** The authorization request a visitor's sign-in page returns to, as path and fields. */
  async function returnOfSignIn(request: Record<string, string>): Promise<{ path: string; fields: Record<string, string> }> {
    const page = asPage(await new UserAgent(server.issuer).navigate(authorizeUrl(server.issuer, request)));
    expect(page.status, page.html.slice(0, 400)).toBe(200);
    const returnTo = new URL(signInForm(page.html)!.fields.return_to!, server.issuer);
    return { path: returnTo.pathname, fields: Object.fromEntries(returnTo.searchParams) };
  }

  it('returns after sign-in to the request without prompt=login and without max_age, which that sign-in meets', async () => {
    const request = fields({ prompt: 'login', max_age: '0' });
    const { prompt: _prompt, max_age: _maxAge, ...rest } = request;
    expect(await returnOfSignIn(request)).toEqual({ path: '/oauth/authorize', fields: rest });
  });

  it('keeps consent when prompt=login consent: the user signs in, then is asked', async () => {
    expect((await returnOfSignIn(fields({ prompt: 'login consent' }))).fields.prompt).toBe('consent');
  });

  it('keeps every value but login as sent, separated by one space', async () => {
    expect((await returnOfSignIn(fields({ prompt: 'consent consent login' }))).fields.prompt).toBe('consent consent');
  });

  /** A browser signed in as a new owner, through the sign-in form. */
  async function signedIn() {
    const user = await server.addUser('owner');
    const agent = new UserAgent(server.issuer);
    const first = asPage(await agent.navigate('/oauth/sign-in?return_to=%2Faccount%2Fapps'));
    asPage(await agent.submit(signInForm(first.html)!, { email: user.email, password: user.password }));
    return { user, agent };
  }

  it('asks a signed-in user to sign in again for prompt=login consent, before any consent page', async () => {
    const { agent } = await signedIn();
    const page = asPage(await agent.navigate(authorizeUrl(server.issuer, fields({ prompt: 'login consent' }))));
    expect(page.status).toBe(200);
    expect(signInForm(page.html)).toBeDefined();
    expect(consentForm(page.html)).toBeUndefined();
  });

  it('takes an empty prompt as none given: a confidential client with a covering grant gets its code at once', async () => {
    const { user, agent } = await signedIn();
    const client = await registerClient(server.issuer, { confidential: true });
    const first = await agent.authorize(authorizeUrl(server.issuer, fields({}, client.clientId)), user);
    expect(first.searchParams.get('code')).toMatch(/\S/);
    const again = asRedirect(await agent.navigate(authorizeUrl(server.issuer, fields({ prompt: '' }, client.clientId))));
    expect(`${again.origin}${again.pathname}`).toBe(REDIRECT);
    expect(again.searchParams.get('code')).toMatch(/\S/);
    expect(again.searchParams.get('state')).toBe('st-prompt');
  });
});
