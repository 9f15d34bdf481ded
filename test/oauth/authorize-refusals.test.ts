/**
 * What a client reads when the authorization endpoint refuses its request,
 * stated by hand: the exact error code and error_description for each rule of
 * the request's parameters (RFC 6749 §4.1.2.1, OIDC Core §3.1.2.1), and the
 * requests those rules let through.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pkcePair, registerPublicClient, repeatedQuery, type AuthorizeParams } from '../helpers/oauth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { parseForms } from '../helpers/user-agent.ts';

const REDIRECT = 'http://127.0.0.1:61238/callback';
const STATE = 'st-Refuse.9';

describe.each(STORE_KINDS)('refusals of the authorization request (%s)', (kind) => {
  let server: TestServer;
  let clientId: string;

  beforeAll(async () => {
    server = await startTestServer(kind);
    clientId = await registerPublicClient(server.issuer, { client_name: 'Refusal Probe', redirect_uris: ['http://127.0.0.1/callback'] });
  });
  afterAll(async () => {
    await server?.close();
  });

  /** The GET of an authorization request: the documented flow with these fields changed. */
  async function get(over: AuthorizeParams): Promise<{ res: Response; html: string }> {
    const params: AuthorizeParams = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      scope: 'courses:read',
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
      state: STATE,
      ...over,
    };
    const res = await fetch(`${server.issuer}/oauth/authorize?${repeatedQuery(params)}`, { redirect: 'manual' });
    return { res, html: await res.text() };
  }

  it('shows an unknown client_id a 400 page that says to register again, and never redirects', async () => {
    const { res, html } = await get({ client_id: 'lyc_client_never-registered' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(html).toContain('<p class="error" role="alert">No client is registered with this client_id. Register it again at /api/oauth/register.</p>');
    expect(html).toContain('Error code: <code>invalid_client</code>.');
  });

  const REFUSED: { rule: string; over: AuthorizeParams; error: string; description: string }[] = [
    { rule: 'an empty scope', over: { scope: '' }, error: 'invalid_scope', description: 'scope is required' },
    { rule: 'a scope of spaces only', over: { scope: '   ' }, error: 'invalid_scope', description: 'scope is required' },
    { rule: 'unknown scope names, each named', over: { scope: 'courses:read admin x:y' }, error: 'invalid_scope', description: 'Unknown scope: admin x:y' },
    {
      rule: 'a scope over 4000 characters',
      over: { scope: 'courses:read '.repeat(308) },
      error: 'invalid_request',
      description: 'scope must be at most 4000 characters',
    },
    { rule: 'a nonce over 500 characters', over: { nonce: 'n'.repeat(501) }, error: 'invalid_request', description: 'nonce must be at most 500 characters' },
    {
      rule: 'two resource parameters (a token serves one resource)',
      over: { resource: ['RESOURCE', 'RESOURCE/mcp'] },
      error: 'invalid_target',
      description: 'Send one resource per request',
    },
    { rule: 'max_age with a unit after the number', over: { max_age: '10s' }, error: 'invalid_request', description: 'max_age must be a non-negative integer' },
    { rule: 'a negative max_age', over: { max_age: '-5' }, error: 'invalid_request', description: 'max_age must be a non-negative integer' },
    { rule: 'a max_age of ten digits', over: { max_age: '1234567890' }, error: 'invalid_request', description: 'max_age must be a non-negative integer' },
    { rule: 'prompt=none with another value', over: { prompt: 'none login' }, error: 'invalid_request', description: 'prompt=none cannot be combined' },
    {
      rule: 'an unknown prompt value beside a known one',
      over: { prompt: 'login select_account' },
      error: 'invalid_request',
      description: 'prompt must be none, login or consent',
    },
  ];

  for (const { rule, over, error, description } of REFUSED) {
    it(`redirects ${rule} back with error=${error} and its exact description`, async () => {
      const resource = over.resource;
      const sent = Array.isArray(resource) ? { ...over, resource: resource.map((r) => r.replace('RESOURCE', server.issuer)) } : over;
      const { res, html } = await get(sent);
      expect(res.status, html.slice(0, 400)).toBe(302);
      const location = new URL(res.headers.get('location')!);
      expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
      expect([...location.searchParams.entries()]).toEqual([
        ['error', error],
        ['error_description', description],
        ['state', STATE],
        ['iss', server.issuer],
      ]);
    });
  }

  // OIDC Core §3.1.2.1: prompt is a "space delimited" list; spaces around and between values delimit nothing.
  const ACCEPTED_PROMPTS = ['', ' login ', 'login  consent'];
  for (const prompt of ACCEPTED_PROMPTS) {
    it(`takes prompt=${JSON.stringify(prompt)} and shows a visitor the sign-in page`, async () => {
      const { res, html } = await get({ prompt });
      expect(res.status, res.headers.get('location') ?? html.slice(0, 400)).toBe(200);
      expect(parseForms(html).map((f) => f.action)).toEqual(['/oauth/sign-in']);
    });
  }
});
