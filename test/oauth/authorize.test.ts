import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '../../src/access/scopes.ts';
import { sessionCookieName } from '../../src/web/interaction/session.ts';
import { pkcePair, postForm, registerPublicClient, repeatedQuery, type AuthorizeParams } from '../helpers/oauth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { asPage, parseForms, UserAgent, type FormInfo } from '../helpers/user-agent.ts';

const REDIRECT = 'http://127.0.0.1:61234/callback';
const STATE = 'st-Zx9_~.4';

const signInForm = (html: string) => parseForms(html).find((f) => f.action === '/oauth/sign-in');
const consentForm = (html: string) => parseForms(html).find((f) => f.action === '/oauth/authorize/decision');

/** The text of the page's error message. */
function errorMessage(html: string): string | undefined {
  return /<p class="error"[^>]*>([\s\S]*?)<\/p>/.exec(html)?.[1]?.trim();
}

/** Pages may not be framed (clickjacking on the consent page). */
function expectNoFraming(headers: Headers) {
  expect(headers.get('x-frame-options')).toBe('DENY');
  expect(headers.get('content-security-policy') ?? '').toMatch(/frame-ancestors 'none'/);
}

/** A fatal error: an HTML page for the person, never a redirect to an untrusted URI. */
function expectFatalPage(res: { status: number; headers: Headers }, html: string) {
  expect(res.status, html.slice(0, 600)).toBe(400);
  expect(res.headers.get('location')).toBeNull();
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  expect(html).toMatch(/<!doctype html>/i);
  expect(errorMessage(html)?.length ?? 0).toBeGreaterThan(0);
  expect(html).not.toMatch(/\n\s+at |node_modules|\.ts:\d+/);
  expectNoFraming(res.headers);
}

describe.each(STORE_KINDS)('GET /oauth/authorize and its pages (%s)', (kind) => {
  let server: TestServer;
  let clientId: string;
  let challenge: string;
  let verifier: string;

  /** The authorization request of the documented flow, with overrides. */
  const params = (over: AuthorizeParams = {}): AuthorizeParams => ({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope: 'courses:read',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: STATE,
    ...over,
  });
  const url = (p: AuthorizeParams) => `${server.issuer}/oauth/authorize?${repeatedQuery(p)}`;

  async function get(p: AuthorizeParams, agent?: UserAgent) {
    const res = agent ? await agent.request(url(p)) : await fetch(url(p), { redirect: 'manual' });
    return { res, html: await res.text() };
  }

  /** A fresh browser, signed in as the user, standing on the page the request leads to. */
  async function signedIn(user: { email: string; password: string }, p: AuthorizeParams) {
    const agent = new UserAgent(server.issuer);
    const page = asPage(await agent.navigate(url(p)));
    const form = signInForm(page.html);
    expect(form, page.html.slice(0, 600)).toBeDefined();
    const after = asPage(await agent.submit(form!, { email: user.email, password: user.password }));
    return { agent, page: after };
  }

  /** Submits the consent form without following the redirect, so status and Location can be read. */
  async function decide(agent: UserAgent, form: FormInfo, fields: Record<string, string | undefined>) {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries({ ...form.fields, ...fields })) if (v !== undefined) body.append(k, v);
    const res = await agent.request(form.action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: body.toString(),
    });
    return { res, html: await res.text() };
  }

  beforeAll(async () => {
    server = await startTestServer(kind);
    clientId = await registerPublicClient(server.issuer, {
      client_name: 'Homework Helper CLI',
      redirect_uris: ['http://127.0.0.1/callback', 'http://localhost:3000/cb?mode=app', 'http://[::1]/v6'],
    });
    ({ challenge, verifier } = pkcePair());
  });
  afterAll(async () => {
    await server?.close();
  });

  describe('fatal errors are HTML pages, never redirects', () => {
    const FATAL: { why: string; over: () => AuthorizeParams }[] = [
      { why: 'client_id is missing', over: () => ({ client_id: undefined }) },
      { why: 'client_id is empty', over: () => ({ client_id: '' }) },
      { why: 'client_id is not registered', over: () => ({ client_id: 'lyc_client_doesnotexist' }) },
      { why: 'client_id is given twice', over: () => ({ client_id: [clientId, clientId] }) },
      {
        why: 'client_id is not registered, even when the rest of the request is also wrong',
        over: () => ({ client_id: 'lyc_client_unknown', response_type: 'token' }),
      },
      { why: 'redirect_uri is missing (loopback clients may use any port, so it cannot be inferred)', over: () => ({ redirect_uri: undefined }) },
      { why: 'redirect_uri is empty', over: () => ({ redirect_uri: '' }) },
      { why: 'redirect_uri is given twice', over: () => ({ redirect_uri: [REDIRECT, REDIRECT] }) },
      { why: 'redirect_uri has another path than the registered one', over: () => ({ redirect_uri: 'http://127.0.0.1:61234/other' }) },
      { why: 'redirect_uri adds a trailing slash to the registered path', over: () => ({ redirect_uri: 'http://127.0.0.1:61234/callback/' }) },
      { why: 'redirect_uri differs from the registered path in case', over: () => ({ redirect_uri: 'http://127.0.0.1:61234/Callback' }) },
      { why: 'redirect_uri adds a query the registration does not have', over: () => ({ redirect_uri: 'http://127.0.0.1:61234/callback?x=1' }) },
      { why: 'redirect_uri drops the query the registration has', over: () => ({ redirect_uri: 'http://localhost:3000/cb' }) },
      { why: 'redirect_uri changes the value of the registered query', over: () => ({ redirect_uri: 'http://localhost:3000/cb?mode=web' }) },
      { why: 'redirect_uri uses localhost where 127.0.0.1 was registered (other host)', over: () => ({ redirect_uri: 'http://localhost:61234/callback' }) },
      { why: 'redirect_uri points at another host (example.com)', over: () => ({ redirect_uri: 'http://example.com/callback' }) },
      { why: 'redirect_uri points at 127.0.0.2, not a registered host', over: () => ({ redirect_uri: 'http://127.0.0.2:61234/callback' }) },
      { why: 'redirect_uri uses https where http was registered', over: () => ({ redirect_uri: 'https://127.0.0.1:61234/callback' }) },
      { why: 'redirect_uri has a fragment', over: () => ({ redirect_uri: 'http://127.0.0.1:61234/callback#x' }) },
      { why: 'redirect_uri carries user information', over: () => ({ redirect_uri: 'http://evil@127.0.0.1:61234/callback' }) },
      { why: 'redirect_uri spells the host as a decimal number, not as registered', over: () => ({ redirect_uri: 'http://2130706433:61234/callback' }) },
      { why: 'redirect_uri has dot segments, so it is not the registered string', over: () => ({ redirect_uri: 'http://127.0.0.1:61234/x/../callback' }) },
    ];

    for (const { why, over } of FATAL) {
      it(`shows a 400 HTML page because ${why}`, async () => {
        const { res, html } = await get(params(over()));
        expectFatalPage(res, html);
      });
    }
  });

  describe('loopback redirect URIs: any port, everything else exact', () => {
    const ACCEPTED: { name: string; redirectUri: string }[] = [
      { name: 'registered without a port, requested with :61234', redirectUri: 'http://127.0.0.1:61234/callback' },
      { name: 'registered without a port, requested without one', redirectUri: 'http://127.0.0.1/callback' },
      { name: 'registered with :3000, requested with :4000', redirectUri: 'http://localhost:4000/cb?mode=app' },
      { name: 'registered with :3000, requested with :3000', redirectUri: 'http://localhost:3000/cb?mode=app' },
      { name: 'registered [::1] without a port, requested with :5555', redirectUri: 'http://[::1]:5555/v6' },
    ];

    for (const { name, redirectUri } of ACCEPTED) {
      it(`accepts ${name}`, async () => {
        const { res, html } = await get(params({ redirect_uri: redirectUri }));
        expect(res.status, html.slice(0, 600)).toBe(200);
        expect(signInForm(html)).toBeDefined();
        // An error redirect goes back to exactly the requested URI, port included.
        const none = await get(params({ redirect_uri: redirectUri, prompt: 'none' }));
        expect(none.res.status).toBe(302);
        const location = new URL(none.res.headers.get('location')!);
        expect(`${location.origin}${location.pathname}`).toBe(`${new URL(redirectUri).origin}${new URL(redirectUri).pathname}`);
        if (new URL(redirectUri).searchParams.has('mode')) expect(location.searchParams.get('mode')).toBe('app');
      });
    }
  });

  describe('error redirects carry error, error_description, state and iss', () => {
    const CHALLENGE_SHAPE = 'code_challenge must be 43 base64url characters';
    const OTHER_RESOURCE = () => `unknown resource; use ${server.issuer} or ${server.issuer}/mcp`;
    const REDIRECTED: { why: string; over: () => AuthorizeParams; error: string; description: string | (() => string) }[] = [
      { why: 'response_type is missing', over: () => ({ response_type: undefined }), error: 'invalid_request', description: 'response_type is required' },
      { why: 'response_type=token (implicit) is not supported', over: () => ({ response_type: 'token' }), error: 'unsupported_response_type', description: 'Only response_type=code is supported' },
      {
        why: 'response_type "code id_token" is not supported',
        over: () => ({ response_type: 'code id_token' }),
        error: 'unsupported_response_type',
        description: 'Only response_type=code is supported',
      },
      { why: 'code_challenge is missing (PKCE is required)', over: () => ({ code_challenge: undefined }), error: 'invalid_request', description: 'code_challenge is required (PKCE with S256)' },
      { why: 'code_challenge_method=plain is refused (S256 only)', over: () => ({ code_challenge_method: 'plain' }), error: 'invalid_request', description: 'code_challenge_method must be S256' },
      {
        why: 'code_challenge_method is missing (S256 must be stated)',
        over: () => ({ code_challenge_method: undefined }),
        error: 'invalid_request',
        description: 'code_challenge_method must be S256',
      },
      { why: 'code_challenge is too short to be an S256 value', over: () => ({ code_challenge: 'abc' }), error: 'invalid_request', description: CHALLENGE_SHAPE },
      { why: 'code_challenge has 44 characters, one more than an S256 value', over: () => ({ code_challenge: 'A'.repeat(44) }), error: 'invalid_request', description: CHALLENGE_SHAPE },
      { why: 'code_challenge starts with a character outside base64url', over: () => ({ code_challenge: `.${'A'.repeat(42)}` }), error: 'invalid_request', description: CHALLENGE_SHAPE },
      {
        why: 'code_challenge uses base64 (not base64url) characters',
        over: () => ({ code_challenge: `${'A'.repeat(41)}+/` }),
        error: 'invalid_request',
        description: CHALLENGE_SHAPE,
      },
      { why: 'scope names an unknown scope', over: () => ({ scope: 'courses:read admin' }), error: 'invalid_scope', description: 'Unknown scope: admin' },
      { why: 'scope holds only unknown names', over: () => ({ scope: 'superpowers' }), error: 'invalid_scope', description: 'Unknown scope: superpowers' },
      { why: 'resource is not an absolute URI', over: () => ({ resource: 'mcp' }), error: 'invalid_target', description: 'resource must be an absolute URI' },
      { why: 'resource has a fragment', over: () => ({ resource: `${server.issuer}/mcp#frag` }), error: 'invalid_target', description: 'resource must not contain a fragment' },
      { why: 'resource names another server', over: () => ({ resource: 'https://api.example.com/' }), error: 'invalid_target', description: OTHER_RESOURCE },
      { why: 'resource names a path this server does not protect', over: () => ({ resource: `${server.issuer}/elsewhere` }), error: 'invalid_target', description: OTHER_RESOURCE },
      { why: 'prompt=none cannot sign anyone in', over: () => ({ prompt: 'none' }), error: 'login_required', description: 'The user must sign in, which prompt=none forbids.' },
      { why: 'prompt has an unknown value', over: () => ({ prompt: 'select_account' }), error: 'invalid_request', description: 'prompt must be none, login or consent' },
      { why: 'max_age is not a number', over: () => ({ max_age: 'soon' }), error: 'invalid_request', description: 'max_age must be a non-negative integer' },
    ];

    for (const { why, over, error, description } of REDIRECTED) {
      it(`redirects with error=${error} because ${why}`, async () => {
        const { res, html } = await get(params(over()));
        expect(res.status, html.slice(0, 600)).toBe(302);
        const location = new URL(res.headers.get('location')!);
        expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
        expect(location.searchParams.get('error')).toBe(error);
        expect(location.searchParams.get('error_description')).toBe(typeof description === 'string' ? description : description());
        expect(location.searchParams.get('state')).toBe(STATE);
        expect(location.searchParams.getAll('iss')).toEqual([server.issuer]);
        expect(location.searchParams.has('code')).toBe(false);
      });
    }

    it('still adds iss when the request had no state (and invents no state)', async () => {
      const { res } = await get(params({ state: undefined, response_type: 'token' }));
      expect(res.status).toBe(302);
      const location = new URL(res.headers.get('location')!);
      expect(location.searchParams.get('error')).toBe('unsupported_response_type');
      expect(location.searchParams.getAll('iss')).toEqual([server.issuer]);
      expect(location.searchParams.has('state')).toBe(false);
    });

    it('shows the error page for a state over 2000 bytes (UTF-8), which an error redirect could not carry back', async () => {
      const { res, html } = await get(params({ state: '€'.repeat(667), response_type: 'token' })); // 667 characters, 2001 bytes
      expectFatalPage(res, html);
      expect(errorMessage(html)).toContain('state must be at most 2000 bytes');
    });

    it('echoes a state with reserved characters exactly', async () => {
      const state = 'a b&c=d/é?#%';
      const { res } = await get(params({ state, response_type: 'token' }));
      expect(new URL(res.headers.get('location')!).searchParams.get('state')).toBe(state);
    });

    const RESOURCES: { name: string; resource: () => string }[] = [
      { name: 'the issuer', resource: () => server.issuer },
      { name: 'the issuer with a trailing slash', resource: () => `${server.issuer}/` },
      { name: 'the MCP endpoint', resource: () => `${server.issuer}/mcp` },
      { name: 'the MCP endpoint with a trailing slash', resource: () => `${server.issuer}/mcp/` },
    ];
    for (const { name, resource } of RESOURCES) {
      it(`accepts resource = ${name}`, async () => {
        const { res, html } = await get(params({ resource: resource() }));
        expect(res.status, res.headers.get('location') ?? html.slice(0, 400)).toBe(200);
        expect(signInForm(html)).toBeDefined();
      });
    }
  });

  describe('sign-in', () => {
    it('shows a sign-in form (email, password, hidden _csrf) to a visitor without a session', async () => {
      const agent = new UserAgent(server.issuer);
      const res = await agent.request(url(params()));
      const html = await res.text();
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('location')).toBeNull();
      expect(html).toMatch(/<input[^>]*name="email"/);
      expect(html).toMatch(/<input[^>]*name="password"[^>]*type="password"|<input[^>]*type="password"[^>]*name="password"/);
      const form = signInForm(html);
      expect(form).toBeDefined();
      expect(form!.fields._csrf?.length ?? 0).toBeGreaterThan(0);
      expect(form!.fields.return_to).toMatch(/^\/oauth\/authorize\?/);
      expect(html).toContain('Homework Helper CLI');
      expectNoFraming(res.headers);
    });

    it('sets the CSRF cookie HttpOnly and SameSite=Lax', async () => {
      const res = await fetch(url(params()), { redirect: 'manual' });
      const cookies = res.headers.getSetCookie();
      expect(cookies.length).toBeGreaterThan(0);
      for (const c of cookies) {
        expect(c).toMatch(/;\s*HttpOnly/i);
        expect(c).toMatch(/;\s*SameSite=Lax/i);
      }
    });

    it('answers a wrong password with 401, the form again and an error message', async () => {
      const user = await server.addUser('owner');
      const agent = new UserAgent(server.issuer);
      const form = signInForm(asPage(await agent.navigate(url(params()))).html)!;
      const page = asPage(await agent.submit(form, { email: user.email, password: `${user.password}-wrong` }));
      expect(page.status).toBe(401);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(signInForm(page.html)?.fields._csrf?.length ?? 0).toBeGreaterThan(0);
      expect(signInForm(page.html)?.fields.return_to).toBe(form.fields.return_to);
      expect(page.html).toMatch(/<input[^>]*name="password"/);
      expect(errorMessage(page.html)?.length ?? 0).toBeGreaterThan(0);
      expect(page.html).not.toContain(user.password);
    });

    it('answers an unknown email with the same 401 and the same message as a wrong password', async () => {
      const user = await server.addUser('owner');
      const agent = new UserAgent(server.issuer);
      const form = signInForm(asPage(await agent.navigate(url(params()))).html)!;
      const wrongPassword = asPage(await agent.submit(form, { email: user.email, password: 'not-the-password' }));
      const form2 = signInForm(wrongPassword.html)!;
      const unknown = asPage(await agent.submit(form2, { email: 'nobody-here@school.test', password: 'whatever-password' }));
      expect(unknown.status).toBe(401);
      expect(errorMessage(unknown.html)).toBe(errorMessage(wrongPassword.html));
      expect(signInForm(unknown.html)).toBeDefined();
    });

    const ODD_CREDENTIALS: { why: string; fields: Record<string, string> }[] = [
      { why: 'the email is empty', fields: { email: '', password: 'x' } },
      { why: 'the password is empty', fields: { email: 'someone@school.test', password: '' } },
      { why: 'the email is absurdly long', fields: { email: `${'a'.repeat(5000)}@school.test`, password: 'x' } },
    ];
    for (const { why, fields } of ODD_CREDENTIALS) {
      it(`refuses sign-in with 401, never 5xx, when ${why}`, async () => {
        const agent = new UserAgent(server.issuer);
        const form = signInForm(asPage(await agent.navigate(url(params()))).html)!;
        const page = asPage(await agent.submit(form, fields));
        expect(page.status).toBe(401);
        expect(signInForm(page.html)).toBeDefined();
      });
    }

    it('refuses POST /oauth/sign-in without _csrf with a 403 HTML page', async () => {
      const user = await server.addUser('owner');
      const agent = new UserAgent(server.issuer);
      const form = signInForm(asPage(await agent.navigate(url(params()))).html)!;
      const { _csrf: _dropped, ...rest } = form.fields;
      const res = await agent.request('/oauth/sign-in', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...rest, email: user.email, password: user.password }).toString(),
      });
      const html = await res.text();
      expect(res.status).toBe(403);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('location')).toBeNull();
      expect(res.headers.getSetCookie().some((c) => c.startsWith(`${sessionCookieName(server.deps.config)}=`))).toBe(false);
      expect(errorMessage(html)?.length ?? 0).toBeGreaterThan(0);
    });

    it('refuses POST /oauth/sign-in with a forged _csrf with a 403 HTML page', async () => {
      const user = await server.addUser('owner');
      const agent = new UserAgent(server.issuer);
      const form = signInForm(asPage(await agent.navigate(url(params()))).html)!;
      const res = await agent.request('/oauth/sign-in', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...form.fields, _csrf: 'forged-token', email: user.email, password: user.password }).toString(),
      });
      expect(res.status).toBe(403);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    });

    it('sets the session cookie HttpOnly and SameSite=Lax and sends the browser back to the authorization request', async () => {
      const user = await server.addUser('owner');
      const agent = new UserAgent(server.issuer);
      const form = signInForm(asPage(await agent.navigate(url(params()))).html)!;
      const res = await agent.request('/oauth/sign-in', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...form.fields, email: user.email, password: user.password }).toString(),
      });
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe(form.fields.return_to);
      const session = res.headers.getSetCookie().find((c) => c.startsWith(`${sessionCookieName(server.deps.config)}=`));
      expect(session).toBeDefined();
      expect(session).toMatch(/;\s*HttpOnly/i);
      expect(session).toMatch(/;\s*SameSite=Lax/i);
      expect(session).toMatch(/;\s*Path=\//i);
    });
  });

  describe('consent', () => {
    const SCOPES: Scope[] = ['openid', 'courses:read', 'students:read', 'orders:read'];
    /** What the consent page tells the user each scope allows, as the page's HTML holds it, written out by hand. */
    const PLAIN_WORDS: Record<string, string> = {
      openid: 'Confirm who you are (sign you in)',
      'courses:read': 'See courses, including drafts',
      'students:read': 'See students, their enrollments and progress',
      'orders:read': 'See orders and what was paid',
    };

    it('shows client name, redirect host, every requested scope in plain words and the approve/deny buttons', async () => {
      const user = await server.addUser('owner');
      const { page } = await signedIn(user, params({ scope: SCOPES.join(' ') }));
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.html).toContain('Homework Helper CLI');
      expect(page.html).toContain('127.0.0.1:61234');
      for (const s of SCOPES) {
        expect(page.html).toContain(PLAIN_WORDS[s]);
        expect(page.html).toContain(s);
      }
      expect(page.html).toMatch(/<button[^>]*name="decision"[^>]*value="approve"/);
      expect(page.html).toMatch(/<button[^>]*name="decision"[^>]*value="deny"/);
      const form = consentForm(page.html);
      expect(form?.fields._csrf?.length ?? 0).toBeGreaterThan(0);
      expectNoFraming(page.headers);
    });

    it('escapes a client name that carries markup', async () => {
      const evilId = await registerPublicClient(server.issuer, { client_name: '<script>alert(1)</script>', redirect_uris: ['http://127.0.0.1/callback'] });
      const user = await server.addUser('owner');
      const { page } = await signedIn(user, params({ client_id: evilId }));
      expect(page.html).not.toContain('<script>alert(1)</script>');
      expect(page.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    });

    it('approve → 303 to the redirect URI with code, state and iss', async () => {
      const user = await server.addUser('owner');
      const { agent, page } = await signedIn(user, params());
      const { res } = await decide(agent, consentForm(page.html)!, { decision: 'approve' });
      expect(res.status).toBe(303);
      const location = new URL(res.headers.get('location')!);
      expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
      expect(location.searchParams.get('code')?.length ?? 0).toBeGreaterThan(20);
      expect(location.searchParams.get('state')).toBe(STATE);
      expect(location.searchParams.getAll('iss')).toEqual([server.issuer]);
      expect(location.searchParams.has('error')).toBe(false);
    });

    it('approve carries back the longest state (2000 bytes of 3-byte characters) in a Location fetch can read', async () => {
      const user = await server.addUser('owner');
      const state = `${'€'.repeat(666)}xx`; // exactly 2000 bytes, 6000 characters once percent-encoded
      const { agent, page } = await signedIn(user, params({ state }));
      const { res } = await decide(agent, consentForm(page.html)!, { decision: 'approve' });
      expect(res.status).toBe(303);
      expect(new URL(res.headers.get('location')!).searchParams.get('state')).toBe(state);
    });

    it('a decision whose state is over 2000 bytes gets the error page, not a redirect too large to read', async () => {
      const user = await server.addUser('owner');
      const { agent, page } = await signedIn(user, params());
      const { res, html } = await decide(agent, consentForm(page.html)!, { decision: 'approve', state: '💥'.repeat(1314) });
      expectFatalPage(res, html);
      expect(errorMessage(html)).toContain('state must be at most 2000 bytes');
    });

    it('deny → 303 to the redirect URI with error=access_denied, state and iss', async () => {
      const user = await server.addUser('owner');
      const { agent, page } = await signedIn(user, params());
      const { res } = await decide(agent, consentForm(page.html)!, { decision: 'deny' });
      expect(res.status).toBe(303);
      const location = new URL(res.headers.get('location')!);
      expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
      expect(location.searchParams.get('error')).toBe('access_denied');
      expect(location.searchParams.get('state')).toBe(STATE);
      expect(location.searchParams.getAll('iss')).toEqual([server.issuer]);
      expect(location.searchParams.has('code')).toBe(false);
    });

    it('asks a public client’s user again on the second authorization (RFC 8252 §8.6: its identity cannot be verified)', async () => {
      const user = await server.addUser('owner');
      const { agent, page } = await signedIn(user, params());
      const first = await decide(agent, consentForm(page.html)!, { decision: 'approve' });
      expect(first.res.status).toBe(303);
      const again = await agent.request(url(params({ state: 'second' })));
      const html = await again.text();
      expect(again.status, again.headers.get('location') ?? '').toBe(200);
      expect(again.headers.get('location')).toBeNull();
      expect(consentForm(html)).toBeDefined();
      expect(signInForm(html)).toBeUndefined();
    });

    it('refuses the decision without _csrf with a 403 page and no redirect', async () => {
      const user = await server.addUser('owner');
      const { agent, page } = await signedIn(user, params());
      const { res, html } = await decide(agent, consentForm(page.html)!, { decision: 'approve', _csrf: undefined });
      expect(res.status).toBe(403);
      expect(res.headers.get('location')).toBeNull();
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(errorMessage(html)?.length ?? 0).toBeGreaterThan(0);
    });

    const TAMPERED: { why: string; redirectUri: string }[] = [
      { why: 'its redirect_uri was changed to another host', redirectUri: 'http://example.com/callback' },
      { why: 'its redirect_uri was changed to an unregistered path', redirectUri: 'http://127.0.0.1:61234/steal' },
      { why: 'its redirect_uri was changed to https', redirectUri: 'https://127.0.0.1:61234/callback' },
    ];
    for (const { why, redirectUri } of TAMPERED) {
      it(`answers a decision whose ${why.replace(/^its /, '')} with a 400 page and no redirect`, async () => {
        const user = await server.addUser('owner');
        const { agent, page } = await signedIn(user, params());
        const { res, html } = await decide(agent, consentForm(page.html)!, { decision: 'approve', redirect_uri: redirectUri });
        expectFatalPage(res, html);
      });
    }

    it('refuses a decision that is neither approve nor deny, without issuing a code', async () => {
      const user = await server.addUser('owner');
      const { agent, page } = await signedIn(user, params());
      const { res, html } = await decide(agent, consentForm(page.html)!, { decision: 'maybe' });
      expectFatalPage(res, html);
      expect(errorMessage(html)).toBe('decision must be approve, approve_read_only or deny');
      expect(await server.deps.store.grants.find(user.id, clientId)).toBeUndefined();
    });
  });

  describe("granted scope = requested ∩ the user's role", () => {
    it('gives a lecturer only courses:read when courses:read members:write was asked and approved', async () => {
      const lecturer = await server.addUser('lecturer');
      const { agent, page } = await signedIn(lecturer, params({ scope: 'courses:read members:write' }));
      expect(page.status).toBe(200);

      const grantable = /It will be able to<\/h2>([\s\S]*?)(<h2|<form)/.exec(page.html)?.[1] ?? '';
      expect(grantable).toContain('courses:read');
      expect(grantable).not.toContain('members:write');
      const withheld = /<h2>[^<]*not available to your role[^<]*<\/h2>([\s\S]*?)(<h2|<form)/i.exec(page.html)?.[1] ?? '';
      expect(withheld).toContain('members:write');
      expect(withheld).toContain('Add, change and remove the school&#39;s team members');
      expect(withheld).not.toContain('courses:read');

      const { res } = await decide(agent, consentForm(page.html)!, { decision: 'approve' });
      expect(res.status).toBe(303);
      const code = new URL(res.headers.get('location')!).searchParams.get('code')!;
      const token = await postForm(`${server.issuer}/api/oauth/token`, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        client_id: clientId,
        code_verifier: verifier,
      });
      expect(token.status, token.text).toBe(200);
      expect(token.json.scope).toBe('courses:read');
    });

    it('gives an owner every scope asked for', async () => {
      const owner = await server.addUser('owner');
      const { agent, page } = await signedIn(owner, params({ scope: 'courses:read courses:write' }));
      expect(page.html).not.toMatch(/not available to your role/i);
      const { res } = await decide(agent, consentForm(page.html)!, { decision: 'approve' });
      const code = new URL(res.headers.get('location')!).searchParams.get('code')!;
      const token = await postForm(`${server.issuer}/api/oauth/token`, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        client_id: clientId,
        code_verifier: verifier,
      });
      expect(token.status, token.text).toBe(200);
      expect(token.json.scope).toBe('courses:read courses:write');
    });

    it('sends a student who asked only for what the role lacks back with an error, not a code', async () => {
      const student = await server.addUser('student');
      const { agent, page } = await signedIn(student, params({ scope: 'courses:write' }));
      expect(page.status).toBe(200);
      const { res } = await decide(agent, consentForm(page.html)!, { decision: 'approve' });
      expect(res.status).toBe(303);
      const location = new URL(res.headers.get('location')!);
      expect(location.searchParams.has('code')).toBe(false);
      expect(location.searchParams.get('error')?.length ?? 0).toBeGreaterThan(0);
      expect(location.searchParams.get('state')).toBe(STATE);
      expect(location.searchParams.getAll('iss')).toEqual([server.issuer]);
    });
  });
});
