/**
 * How a scope parameter is split, as a client sees it. RFC 6749 §3.3: "The
 * value of the scope parameter is expressed as a list of space-delimited,
 * case-sensitive strings." Extra spaces delimit nothing, and a scope named
 * twice is one scope.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { obtainTokens, refreshRequest, registerClient, startFlowServer, REGISTERED_REDIRECT_URI, type FlowServer } from '../helpers/flow.ts';
import { authorizeUrl, pkcePair } from '../helpers/oauth.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { asPage, parseForms, UserAgent } from '../helpers/user-agent.ts';

describe.each(STORE_KINDS)('scope parsing (%s)', (kind) => {
  let server: FlowServer;
  beforeAll(async () => {
    server = await startFlowServer(kind);
  });
  afterAll(() => server?.stop());

  it('accepts a scope at refresh with doubled, leading and trailing spaces (RFC 6749 §3.3)', async () => {
    const { flow, tokens } = await obtainTokens(server);
    const res = await refreshRequest(server, flow, tokens.refresh_token!, { scope: ' courses:read  students:read ' });
    expect({ status: res.status, scope: res.json.scope }, res.text).toEqual({ status: 200, scope: 'courses:read students:read' });
  });

  it('lists a scope named twice in the authorization request once on the consent page', async () => {
    const client = await registerClient(server.issuer);
    const url = authorizeUrl(server.issuer, {
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: REGISTERED_REDIRECT_URI,
      scope: 'courses:read courses:read',
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
      state: 'twice',
    });
    const agent = new UserAgent(server.issuer);
    const signIn = parseForms(asPage(await agent.navigate(url)).html).find((f) => f.action === '/oauth/sign-in')!;
    const consent = asPage(await agent.submit(signIn, { email: server.user.email, password: server.user.password }));
    expect(consent.status).toBe(200);
    expect(parseForms(consent.html).some((f) => f.action === '/oauth/authorize/decision')).toBe(true);
    const listed = [...consent.html.matchAll(/<ul class="scopes">([\s\S]*?)<\/ul>/g)].map((m) => m[1]!.match(/<li>/g)?.length);
    expect({ lists: listed, html: consent.html.match(/<code>courses:read<\/code>/g)?.length }).toEqual({ lists: [1], html: 1 });
  });
});
