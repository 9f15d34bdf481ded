/**
 * Browser-side rules stated by hand, over real HTTP: prompt=none without a
 * covering grant, consent when an app asks for more than it was granted,
 * prompt=login, session expiry, sign-out CSRF, and the only places sign-in
 * may send the browser back to.
 */
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, pkcePair, postForm, register, registerPublicClient } from '../helpers/oauth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { asPage, asRedirect, parseForms, UserAgent, type FormInfo } from '../helpers/user-agent.ts';

const REDIRECT = 'http://127.0.0.1:61236/callback';
/** SESSION_TTL_SECONDS for this server: short, so expiry is tested at its edge. */
const SESSION_TTL = 600;

const formTo = (html: string, action: string) => parseForms(html).find((f) => f.action === action);
const signInForm = (html: string) => formTo(html, '/oauth/sign-in');
const consentForm = (html: string) => formTo(html, '/oauth/authorize/decision');

/** The scope codes listed under "It will be able to" on a consent page. */
function grantableOnPage(html: string): string[] {
  const section = /It will be able to<\/h2>([\s\S]*?)(<h2|<form)/.exec(html)?.[1] ?? '';
  return [...section.matchAll(/<code>([^<]+)<\/code>/g)].map((m) => m[1]!);
}

describe.each(STORE_KINDS)('sign-in, consent and session rules (%s)', (kind) => {
  let server: TestServer;
  let publicClient: string;

  beforeAll(async () => {
    server = await startTestServer(kind, { SESSION_TTL_SECONDS: String(SESSION_TTL) });
    publicClient = await registerPublicClient(server.issuer, { client_name: 'Rules CLI' });
  });
  afterAll(() => server?.close());

  const request = (clientId: string, extra: Record<string, string> = {}, challenge = pkcePair().challenge) =>
    authorizeUrl(server.issuer, {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      scope: 'openid courses:read',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'st-1',
      ...extra,
    });

  /** A browser signed in as a new user of the role, through the sign-in form. */
  async function signedIn(role: 'owner' | 'admin' | 'lecturer' | 'student' = 'owner') {
    const user = await server.addUser(role);
    const agent = new UserAgent(server.issuer);
    const first = asPage(await agent.navigate('/oauth/sign-in?return_to=%2Faccount%2Fapps'));
    const apps = asPage(await agent.submit(signInForm(first.html)!, { email: user.email, password: user.password }));
    expect(apps.url).toBe(`${server.issuer}/account/apps`);
    return { user, agent };
  }

  async function confidentialClient(): Promise<{ id: string; secret: string }> {
    const reg = await register(server.issuer, { client_name: 'Rules Daemon', redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'client_secret_post' });
    expect(reg.status).toBe(201);
    return { id: reg.json.client_id as string, secret: reg.json.client_secret as string };
  }

  /** The error redirect of OIDC Core §3.1.2.6: this error, the state, the issuer, no code. */
  function expectErrorRedirect(location: URL, error: string) {
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    expect(location.searchParams.get('error')).toBe(error);
    expect(location.searchParams.get('error_description')).toMatch(/\S/);
    expect(location.searchParams.get('state')).toBe('st-1');
    expect(location.searchParams.getAll('iss')).toEqual([server.issuer]);
    expect(location.searchParams.has('code')).toBe(false);
  }

  describe('prompt=none without a covering grant (OIDC Core §3.1.2.6)', () => {
    it('answers a signed-in user of a public client with consent_required, never a code', async () => {
      const { agent } = await signedIn();
      expectErrorRedirect(asRedirect(await agent.navigate(request(publicClient, { prompt: 'none' }))), 'consent_required');
    });

    it('answers a signed-in user of a confidential client never approved with consent_required', async () => {
      const { agent } = await signedIn();
      const client = await confidentialClient();
      expectErrorRedirect(asRedirect(await agent.navigate(request(client.id, { prompt: 'none' }))), 'consent_required');
    });

    it('answers a visitor without a session with login_required', async () => {
      const agent = new UserAgent(server.issuer);
      expectErrorRedirect(asRedirect(await agent.navigate(request(publicClient, { prompt: 'none' }))), 'login_required');
    });
  });

  describe('consent when an app asks for more than it was granted before', () => {
    it('asks again, listing the new scope, and answers prompt=none with consent_required', async () => {
      const { user, agent } = await signedIn();
      const client = await confidentialClient();
      // First approval: courses:read only.
      const first = await agent.authorize(request(client.id, { scope: 'courses:read' }), user);
      expect(first.searchParams.get('code')).toMatch(/\S/);
      // The same scope again: no page, a code at once.
      expect(asRedirect(await agent.navigate(request(client.id, { scope: 'courses:read' }))).searchParams.get('code')).toMatch(/\S/);

      const wider = asPage(await agent.navigate(request(client.id, { scope: 'courses:read students:read' })));
      expect(wider.status).toBe(200);
      expect(consentForm(wider.html)).toBeDefined();
      expect(grantableOnPage(wider.html)).toEqual(['courses:read', 'students:read']);
      expectErrorRedirect(asRedirect(await agent.navigate(request(client.id, { scope: 'courses:read students:read', prompt: 'none' }))), 'consent_required');
    });
  });

  describe("every role's grantable scopes on the consent page", () => {
    const ASKED = 'openid courses:read courses:write students:read students:write members:read members:write orders:read account:read';
    const GRANTABLE: Record<string, string[]> = {
      owner: ['openid', 'courses:read', 'courses:write', 'students:read', 'students:write', 'members:read', 'members:write', 'orders:read', 'account:read'],
      admin: ['openid', 'courses:read', 'courses:write', 'students:read', 'students:write', 'members:read', 'orders:read', 'account:read'],
      lecturer: ['openid', 'courses:read', 'courses:write', 'students:read', 'account:read'],
      student: ['openid', 'account:read'],
    };
    for (const [role, grantable] of Object.entries(GRANTABLE)) {
      it(`lists for ${role === 'owner' || role === 'admin' ? 'an' : 'a'} ${role} exactly ${grantable.join(' ')} as grantable, and issues exactly that`, async () => {
        const { agent } = await signedIn(role as 'owner');
        const { verifier, challenge } = pkcePair();
        const page = asPage(await agent.navigate(request(publicClient, { scope: ASKED }, challenge)));
        expect(grantableOnPage(page.html)).toEqual(grantable);
        const code = asRedirect(await agent.submit(consentForm(page.html)!, { decision: 'approve' })).searchParams.get('code')!;
        const token = await postForm(`${server.issuer}/api/oauth/token`, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: publicClient, code_verifier: verifier });
        expect(token.status, token.text).toBe(200);
        expect(token.json.scope).toBe(grantable.join(' '));
      });
    }
  });

  describe('prompt=login (OIDC Core §3.1.2.1)', () => {
    it('shows the sign-in form to a user with a live session, then consent, and the code carries the new auth_time', async () => {
      const { user, agent } = await signedIn();
      const firstSignIn = Math.floor(server.deps.now() / 1000);
      server.advance(120_000);
      const { verifier, challenge } = pkcePair();
      const page = asPage(await agent.navigate(request(publicClient, { prompt: 'login', nonce: 'n-1' }, challenge)));
      expect(page.status).toBe(200);
      expect(signInForm(page.html)).toBeDefined();
      expect(consentForm(page.html)).toBeUndefined();
      const signedInAgainAt = Math.floor(server.deps.now() / 1000);

      const consent = asPage(await agent.submit(signInForm(page.html)!, { email: user.email, password: user.password }));
      expect(consentForm(consent.html)).toBeDefined();
      const code = asRedirect(await agent.submit(consentForm(consent.html)!, { decision: 'approve' })).searchParams.get('code')!;
      const token = await postForm(`${server.issuer}/api/oauth/token`, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: publicClient, code_verifier: verifier });
      expect(token.status, token.text).toBe(200);
      const authTime = decodeJwt(token.json.id_token as string).auth_time as number;
      expect(authTime).toBeGreaterThanOrEqual(signedInAgainAt);
      expect(authTime).toBeGreaterThan(firstSignIn + 60);
    });
  });

  describe(`session expiry (SESSION_TTL_SECONDS=${SESSION_TTL})`, () => {
    it('keeps the session one second before its lifetime ends, and asks to sign in again one second after', async () => {
      const { agent } = await signedIn();
      server.advance((SESSION_TTL - 1) * 1000);
      expect(consentForm(asPage(await agent.navigate(request(publicClient))).html)).toBeDefined();
      server.advance(2_000);
      const after = asPage(await agent.navigate(request(publicClient)));
      expect(signInForm(after.html)).toBeDefined();
      expect(consentForm(after.html)).toBeUndefined();
      const apps = await agent.request('/account/apps');
      expect(apps.status).toBe(303);
      expect(apps.headers.get('location')).toBe('/oauth/sign-in?return_to=%2Faccount%2Fapps');
    });
  });

  describe('sign-out CSRF', () => {
    /** A same-origin sign-out POST with these fields: only the CSRF token is wrong. */
    const signOut = (agent: UserAgent, fields: Record<string, string>) =>
      agent.request('/oauth/sign-out', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
        body: new URLSearchParams(fields).toString(),
      });

    async function expectRefusedAndSessionKept(agent: UserAgent, email: string, res: Response) {
      const html = await res.text();
      expect(res.status, html.slice(0, 400)).toBe(403);
      expect(res.headers.get('location')).toBeNull();
      expect(html).toContain('<code>invalid_csrf</code>');
      const apps = asPage(await agent.navigate('/account/apps'));
      expect(apps.url).toBe(`${server.issuer}/account/apps`);
      expect(apps.html).toContain(email);
    }

    it('refuses a sign-out without _csrf with 403 invalid_csrf, and the session survives', async () => {
      const { user, agent } = await signedIn();
      await expectRefusedAndSessionKept(agent, user.email, await signOut(agent, {}));
    });

    it('refuses a sign-out with a forged _csrf with 403 invalid_csrf, and the session survives', async () => {
      const { user, agent } = await signedIn();
      await expectRefusedAndSessionKept(agent, user.email, await signOut(agent, { _csrf: 'forged-token-value' }));
    });

    it('signs out with the page’s own token: the session ends', async () => {
      const { agent } = await signedIn();
      const form: FormInfo = formTo(asPage(await agent.navigate('/account/apps')).html, '/oauth/sign-out')!;
      const res = await signOut(agent, form.fields);
      expect(res.status).toBeLessThan(400);
      expect((await agent.request('/account/apps')).status).toBe(303);
    });
  });

  describe('where sign-in returns to: Lyceum’s own pages only, never an open redirect', () => {
    const REFUSED = [
      '//evil.example/',
      '/\\evil.example/',
      '/\\/evil.example/',
      'https://evil.example/',
      'http://127.0.0.1:1/x',
      '/oauth/authorize',
      '/oauth/authorizex?client_id=x',
      '/account/apps/../../elsewhere',
      'javascript:alert(1)',
      ' /account/apps',
    ];
    for (const target of REFUSED) {
      it(`sends the browser to / instead of ${JSON.stringify(target)}`, async () => {
        const user = await server.addUser('student');
        const agent = new UserAgent(server.issuer);
        const form = signInForm(asPage(await agent.navigate(`/oauth/sign-in?return_to=${encodeURIComponent(target)}`)).html)!;
        expect(form.fields.return_to).toBe('/');
        const res = await agent.request('/oauth/sign-in', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
          body: new URLSearchParams({ ...form.fields, return_to: target, email: user.email, password: user.password }).toString(),
        });
        expect(res.status).toBe(303);
        expect(res.headers.get('location')).toBe('/');
      });
    }

    for (const target of ['/account/apps', '/oauth/authorize?client_id=abc&scope=openid']) {
      it(`returns to ${target} after sign-in`, async () => {
        const user = await server.addUser('student');
        const agent = new UserAgent(server.issuer);
        const form = signInForm(asPage(await agent.navigate(`/oauth/sign-in?return_to=${encodeURIComponent(target)}`)).html)!;
        expect(form.fields.return_to).toBe(target);
        const res = await agent.request('/oauth/sign-in', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
          body: new URLSearchParams({ ...form.fields, email: user.email, password: user.password }).toString(),
        });
        expect(res.status).toBe(303);
        expect(res.headers.get('location')).toBe(target);
      });
    }
  });
});
