/**
 * How the pages speak of an app that registered without a client_name
 * (RFC 7591 §2: client_name is optional): the sign-in page, the consent page,
 * and the sign-in page of a decision sent after the session ended.
 */
import { describe, expect, it } from 'vitest';
import { authorizeUrl, pkcePair, register } from '../helpers/oauth.ts';
import { startTestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { asPage, parseForms, UserAgent } from '../helpers/user-agent.ts';

const REDIRECT = 'http://127.0.0.1:61241/callback';
/** SESSION_TTL_SECONDS for this server: the lifetime the test waits out. */
const SESSION_TTL = 600;

const formTo = (html: string, action: string) => parseForms(html).find((f) => f.action === action);
const SIGN_IN_NAMES_AN_APP = '<p><strong>An app</strong> wants to connect to your Lyceum account. Sign in to continue.</p>';

describe.each(STORE_KINDS)('an app without a name (%s)', (kind) => {
  it('is "An app" on the sign-in pages and "An unnamed app" on the consent page', async () => {
    const server = await startTestServer(kind, { SESSION_TTL_SECONDS: String(SESSION_TTL) });
    try {
      const reg = await register(server.issuer, { redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none' });
      expect(reg.status).toBe(201);
      expect(reg.json.client_name).toBeUndefined();
      const user = await server.addUser('owner');
      const agent = new UserAgent(server.issuer);
      const link = authorizeUrl(server.issuer, {
        response_type: 'code',
        client_id: reg.json.client_id as string,
        redirect_uri: REDIRECT,
        scope: 'courses:read',
        code_challenge: pkcePair().challenge,
        code_challenge_method: 'S256',
        state: 'st-unnamed',
      });

      const signIn = asPage(await agent.navigate(link));
      expect(signIn.html).toContain(SIGN_IN_NAMES_AN_APP);
      const consent = await agent.signIn(signIn, user);
      expect(consent.html).toContain('<h1>Allow <span class="client-name">An unnamed app</span> to access your account?</h1>');

      server.advance((SESSION_TTL + 1) * 1000);
      const decision = formTo(consent.html, '/oauth/authorize/decision')!;
      const res = await agent.request(decision.action, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...decision.fields, decision: 'approve' }).toString(),
      });
      expect(res.status, res.headers.get('location') ?? '').toBe(200);
      expect(await res.text()).toContain(SIGN_IN_NAMES_AN_APP);
    } finally {
      await server.close();
    }
  });
});
