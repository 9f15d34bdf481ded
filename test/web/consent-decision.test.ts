/**
 * The consent form's answer (POST /oauth/authorize/decision) beyond approve
 * and deny, stated by hand: a decision that is neither, and a decision sent
 * after the session it was made in has ended.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, pkcePair, registerPublicClient } from '../helpers/oauth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { asPage, parseForms, UserAgent, type FormInfo } from '../helpers/user-agent.ts';

const REDIRECT = 'http://127.0.0.1:61240/callback';
/** SESSION_TTL_SECONDS for this server: the lifetime a test waits out. */
const SESSION_TTL = 600;

const formTo = (html: string, action: string) => parseForms(html).find((f) => f.action === action);

describe.each(STORE_KINDS)('the consent decision (%s)', (kind) => {
  let server: TestServer;
  let clientId: string;

  beforeAll(async () => {
    server = await startTestServer(kind, { SESSION_TTL_SECONDS: String(SESSION_TTL) });
    clientId = await registerPublicClient(server.issuer, { client_name: 'Decision Probe', redirect_uris: ['http://127.0.0.1/callback'] });
  });
  afterAll(() => server?.close());

  /** A new owner signed in on a fresh browser, standing on the consent page: its form. */
  async function consentForm(): Promise<{ agent: UserAgent; form: FormInfo }> {
    const user = await server.addUser('owner');
    const agent = new UserAgent(server.issuer);
    const link = authorizeUrl(server.issuer, {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      scope: 'courses:read',
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
      state: 'st-decide',
    });
    const signIn = asPage(await agent.navigate(link));
    const consent = await agent.signIn(signIn, user);
    const form = formTo(consent.html, '/oauth/authorize/decision');
    expect(form, consent.html.slice(0, 400)).toBeDefined();
    return { agent, form: form! };
  }

  const send = (agent: UserAgent, form: FormInfo, decision: string) =>
    agent.request(form.action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...form.fields, decision }).toString(),
    });

  it('answers a decision that is neither approve nor deny with a 400 page saying so, and no redirect to the app', async () => {
    const { agent, form } = await consentForm();
    const res = await send(agent, form, 'maybe');
    const html = await res.text();
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(html).toContain('<p class="error" role="alert">decision must be approve, approve_read_only or deny</p>');
    expect(html).toContain('Error code: <code>invalid_request</code>.');
  });

  it('shows the sign-in page, naming the app, to a decision sent after the session ended; the page returns to the same request', async () => {
    const { agent, form } = await consentForm();
    server.advance((SESSION_TTL + 1) * 1000);
    const res = await send(agent, form, 'approve');
    const html = await res.text();
    expect(res.status, res.headers.get('location') ?? '').toBe(200);
    expect(html).toContain('<p><strong>Decision Probe</strong> wants to connect to your Lyceum account. Sign in to continue.</p>');
    const returnTo = new URL(formTo(html, '/oauth/sign-in')!.fields.return_to!, server.issuer);
    // The authorization request comes back; the person's choices (ticked scopes) are made again on the page.
    const request = Object.fromEntries(Object.entries(form.fields).filter(([k]) => k !== '_csrf' && !k.startsWith('grant_')));
    expect({ path: returnTo.pathname, fields: Object.fromEntries(returnTo.searchParams) }).toEqual({ path: '/oauth/authorize', fields: request });
  });
});
