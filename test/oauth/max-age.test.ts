import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, pkcePair, postForm, registerPublicClient } from '../helpers/oauth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { asPage, asRedirect, parseForms, UserAgent } from '../helpers/user-agent.ts';

const REDIRECT = 'http://127.0.0.1:61235/callback';

const signInForm = (html: string) => parseForms(html).find((f) => f.action === '/oauth/sign-in');
const consentForm = (html: string) => parseForms(html).find((f) => f.action === '/oauth/authorize/decision');

// OIDC Core §3.1.2.1 max_age: "If the elapsed time is greater than this value, the OP MUST attempt to
// actively re-authenticate the End-User. (... max_age=0 is equivalent to the OpenID Connect prompt=login.)"
describe.each(STORE_KINDS)('max_age on /oauth/authorize (%s)', (kind) => {
  let server: TestServer;
  let clientId: string;
  let user: { email: string; password: string };

  beforeAll(async () => {
    server = await startTestServer(kind);
    clientId = await registerPublicClient(server.issuer, { client_name: 'Age Checker', redirect_uris: ['http://127.0.0.1/callback'] });
    user = await server.addUser('student');
  });
  afterAll(() => server?.close());

  const request = (challenge: string, maxAge?: string, extra: Record<string, string> = {}) =>
    authorizeUrl(server.issuer, {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      scope: 'openid profile',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'st',
      nonce: 'n-1',
      ...(maxAge !== undefined ? { max_age: maxAge } : {}),
      ...extra,
    });

  /** A browser signed in through a plain authorization, left on its consent page. */
  async function signedInAgent() {
    const agent = new UserAgent(server.issuer);
    const first = asPage(await agent.navigate(request(pkcePair().challenge)));
    const consent = asPage(await agent.submit(signInForm(first.html)!, { email: user.email, password: user.password }));
    expect(consentForm(consent.html)).toBeDefined();
    return agent;
  }

  it('max_age=0 shows the sign-in page once, then consent, then a code whose ID token has the new auth_time', async () => {
    const agent = await signedInAgent();
    server.advance(60_000);
    const { verifier, challenge } = pkcePair();
    const signIn = asPage(await agent.navigate(request(challenge, '0')));
    expect(signIn.status).toBe(200);
    expect(signInForm(signIn.html)).toBeDefined();
    const signedInAt = Math.floor(server.deps.now() / 1000);

    const consent = asPage(await agent.submit(signInForm(signIn.html)!, { email: user.email, password: user.password }));
    expect(signInForm(consent.html)).toBeUndefined();
    const form = consentForm(consent.html)!;
    expect(form).toBeDefined();
    const approved = await agent.submit(form, { decision: 'approve' });
    if (!('redirect' in approved)) throw new Error(`expected the redirect to the client, got ${approved.html.slice(0, 300)}`);
    const code = approved.redirect.searchParams.get('code')!;
    expect(code).toBeTruthy();

    const token = await postForm(`${server.issuer}/api/oauth/token`, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: clientId, code_verifier: verifier });
    expect(token.status).toBe(200);
    const authTime = decodeJwt(token.json.id_token as string).auth_time as number;
    // The sign-in of a minute before would be 60 s older: this is the one just made.
    expect(authTime).toBeGreaterThanOrEqual(signedInAt);
    expect(authTime).toBeLessThanOrEqual(Math.ceil(server.deps.now() / 1000));
  });

  it('max_age=N asks an older sign-in to be repeated', async () => {
    const agent = await signedInAgent();
    server.advance(301_000);
    const page = asPage(await agent.navigate(request(pkcePair().challenge, '300')));
    expect(signInForm(page.html)).toBeDefined();
    expect(consentForm(page.html)).toBeUndefined();
    const after = asPage(await agent.submit(signInForm(page.html)!, { email: user.email, password: user.password }));
    expect(consentForm(after.html)).toBeDefined();
  });

  it('max_age=N lets a fresh sign-in through to consent', async () => {
    const agent = await signedInAgent();
    server.advance(10_000);
    const page = asPage(await agent.navigate(request(pkcePair().challenge, '300')));
    expect(signInForm(page.html)).toBeUndefined();
    expect(consentForm(page.html)).toBeDefined();
  });

  it('max_age=N lets a sign-in exactly N seconds old through: only an older one is asked again', async () => {
    const restart = server.freeze();
    try {
      const agent = await signedInAgent();
      server.advance(300_000);
      const page = asPage(await agent.navigate(request(pkcePair().challenge, '300')));
      expect(signInForm(page.html)).toBeUndefined();
      expect(consentForm(page.html)).toBeDefined();
    } finally {
      restart();
    }
  });

  // OIDC Core §3.1.2.6 login_required: "The Authorization Server requires End-User authentication."
  it('answers prompt=none with login_required, not consent_required, when the sign-in is older than max_age', async () => {
    const agent = await signedInAgent();
    server.advance(301_000);
    const location = asRedirect(await agent.navigate(request(pkcePair().challenge, '300', { prompt: 'none' })));
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    expect([...location.searchParams.entries()]).toEqual([
      ['error', 'login_required'],
      ['error_description', 'The user must sign in, which prompt=none forbids.'],
      ['state', 'st'],
      ['iss', server.issuer],
    ]);
  });
});
