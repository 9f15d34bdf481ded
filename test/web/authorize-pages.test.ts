/**
 * The authorization endpoint and the consent decision on a server started by
 * the test itself, since their route options are set while the app is built:
 * both answer errors with HTML pages for the person in the browser, and the
 * decision only takes a form with its CSRF token.
 */
import { describe, expect, it } from 'vitest';
import { browserApp, expectFormRefused } from '../helpers/browser-app.ts';
import { startTestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { asPage, parseForms } from '../helpers/user-agent.ts';

const REDIRECT = 'http://127.0.0.1:61242/callback';

describe.each(STORE_KINDS)('the authorization routes of a fresh server (%s)', (kind) => {
  it('answer errors with HTML pages, and the decision refuses a form without its CSRF token', async () => {
    const server = await startTestServer(kind);
    try {
      const { user, agent, link } = await browserApp(server, { name: 'Fresh Routes Probe', redirectUri: REDIRECT, scope: 'courses:read', state: 'fresh' });

      const unknown = await fetch(link.replace(/client_id=[^&]+/, 'client_id=lyc_client_unknown'), { redirect: 'manual' });
      const page = await unknown.text();
      expect(unknown.status).toBe(400);
      expect(unknown.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page).toContain('Error code: <code>invalid_client</code>.');

      const signIn = asPage(await agent.navigate(link));
      const consent = await agent.signIn(signIn, user);
      const decision = parseForms(consent.html).find((f) => f.action === '/oauth/authorize/decision')!;
      const post = (fields: Record<string, string>) =>
        agent.request(decision.action, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(fields).toString(),
        });

      const { _csrf, ...withoutToken } = decision.fields;
      expect(_csrf).toMatch(/\S/);
      await expectFormRefused(await post({ ...withoutToken, decision: 'approve' }), 'The form expired or was not sent from this site.');

      const neither = await post({ ...decision.fields, decision: 'maybe' });
      expect(neither.status).toBe(400);
      expect(neither.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await neither.text()).toContain('Error code: <code>invalid_request</code>.');
    } finally {
      await server.close();
    }
  });
});
