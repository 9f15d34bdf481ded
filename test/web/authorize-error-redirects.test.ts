/**
 * Every authorization error sent back to the client carries exactly what RFC
 * 6749 §4.1.2.1 and RFC 9207 §2 name: error, error_description, state (when the
 * request had one) and iss, in that order, and nothing else.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, pkcePair, registerPublicClient } from '../helpers/oauth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { asPage, parseForms, UserAgent } from '../helpers/user-agent.ts';

const REDIRECT = 'http://127.0.0.1:61235/callback';
const STATE = 'st-Err_~.7';

/** The redirect to the client: its exact parameters, in order. */
function expectErrorRedirect(res: Response, issuer: string, error: string, description: string, state: string | null = STATE): void {
  expect(res.status, res.headers.get('location') ?? '').toBeGreaterThanOrEqual(302);
  const location = new URL(res.headers.get('location')!);
  expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
  const expected: [string, string][] = [['error', error], ['error_description', description], ...(state === null ? [] : ([['state', state]] as [string, string][])), ['iss', issuer]];
  expect([...location.searchParams.entries()]).toEqual(expected);
  expect(res.headers.get('cache-control')).toBe('no-store');
}

describe.each(STORE_KINDS)('authorization error redirects (%s)', (kind) => {
  let server: TestServer;
  let clientId: string;
  let user: { email: string; password: string };

  const request = (over: Record<string, string | undefined> = {}) => {
    const params: Record<string, string> = {};
    const all = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      scope: 'courses:read',
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
      state: STATE,
      ...over,
    };
    for (const [k, v] of Object.entries(all)) if (v !== undefined) params[k] = v;
    return authorizeUrl(server.issuer, params);
  };

  beforeAll(async () => {
    server = await startTestServer(kind);
    clientId = await registerPublicClient(server.issuer, { client_name: 'Error redirects', redirect_uris: [REDIRECT] });
    user = await server.addUser('owner');
  });
  afterAll(async () => {
    await server?.close();
  });

  it('an unknown scope: invalid_scope, 302', async () => {
    const res = await fetch(request({ scope: 'courses:read no:such-scope' }), { redirect: 'manual' });
    expect(res.status).toBe(302);
    expectErrorRedirect(res, server.issuer, 'invalid_scope', 'Unknown scope: no:such-scope');
  });

  it('the description keeps to the characters RFC 6749 allows: a quote or a backslash becomes ?', async () => {
    const res = await fetch(request({ scope: 'courses:read a"b\\c' }), { redirect: 'manual' });
    expectErrorRedirect(res, server.issuer, 'invalid_scope', 'Unknown scope: a?b?c');
  });

  it('the longest scope and state still make a Location header an HTTP client reads', async () => {
    // Sent as written, "!" is one character; echoed and percent-encoded it is three ("%21"):
    // 4000 of them in the description and 2000 in state would be an 18 KB header.
    const scope = '!'.repeat(4000);
    const state = '!'.repeat(2000);
    const res = await fetch(`${request({ state: undefined, scope: undefined })}&scope=${scope}&state=${state}`, { redirect: 'manual' });
    expectErrorRedirect(res, server.issuer, 'invalid_scope', `Unknown scope: ${'!'.repeat(282)}...`, state);
  });

  it('without state the error carries no state', async () => {
    const res = await fetch(request({ scope: 'no:such-scope', state: undefined }), { redirect: 'manual' });
    expectErrorRedirect(res, server.issuer, 'invalid_scope', 'Unknown scope: no:such-scope', null);
  });

  it('prompt=none with nobody signed in: login_required, 302', async () => {
    const res = await fetch(request({ prompt: 'none' }), { redirect: 'manual' });
    expect(res.status).toBe(302);
    expectErrorRedirect(res, server.issuer, 'login_required', 'The user must sign in, which prompt=none forbids.');
  });

  it('prompt=none signed in, but a public client must always ask: consent_required, 302', async () => {
    const agent = new UserAgent(server.issuer);
    await agent.authorize(request(), user);
    const res = await agent.request(request({ prompt: 'none' }));
    expect(res.status).toBe(302);
    expectErrorRedirect(res, server.issuer, 'consent_required', 'The user must approve this app, which prompt=none forbids.');
  });

  /** Signs the user in on a fresh browser and answers the consent page; the raw answer to the form. */
  async function decide(who: { email: string; password: string }, decision: string, over: Record<string, string> = {}): Promise<Response> {
    const agent = new UserAgent(server.issuer);
    const first = asPage(await agent.navigate(request(over)));
    const signIn = parseForms(first.html).find((f) => f.action === '/oauth/sign-in')!;
    const consentPage = asPage(await agent.submit(signIn, { email: who.email, password: who.password }));
    const consent = parseForms(consentPage.html).find((f) => f.action === '/oauth/authorize/decision');
    expect(consent, consentPage.html.slice(0, 600)).toBeDefined();
    return agent.request(consent!.action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...consent!.fields, decision }).toString(),
    });
  }

  it('the user denies: access_denied, 303 after the form', async () => {
    const res = await decide(user, 'deny');
    expect(res.status).toBe(303);
    expectErrorRedirect(res, server.issuer, 'access_denied', 'The user denied the request.');
  });

  it('the user approves, but their role allows none of the scopes: invalid_scope, 303 after the form', async () => {
    const student = await server.addUser('student');
    const res = await decide(student, 'approve', { scope: 'students:read' });
    expect(res.status).toBe(303);
    expectErrorRedirect(res, server.issuer, 'invalid_scope', 'None of the requested scopes is available to this user.');
  });
});
