import { expect } from 'vitest';
import { authorizeUrl, pkcePair, registerPublicClient } from './oauth.ts';
import type { TestServer } from './server.ts';
import { UserAgent } from './user-agent.ts';

export interface BrowserApp {
  clientId: string;
  user: { email: string; password: string; id: string };
  agent: UserAgent;
  /** The authorization request that starts sign-in and consent for this app. */
  link: string;
}

/**
 * A public app registered on the server, an owner, a browser with no cookies
 * yet, and the S256 authorization request that will connect the two.
 */
export async function browserApp(server: TestServer, app: { name: string; redirectUri: string; scope: string; state: string }): Promise<BrowserApp> {
  const clientId = await registerPublicClient(server.issuer, { client_name: app.name, redirect_uris: [app.redirectUri] });
  const user = await server.addUser('owner');
  const link = authorizeUrl(server.issuer, {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: app.redirectUri,
    scope: app.scope,
    code_challenge: pkcePair().challenge,
    code_challenge_method: 'S256',
    state: app.state,
  });
  return { clientId, user, agent: new UserAgent(server.issuer), link };
}

/** A refused form: a readable HTML page with a 403, never a redirect, never a new cookie. */
export async function expectFormRefused(res: Response, description: string): Promise<void> {
  const html = await res.text();
  expect(res.status, html.slice(0, 600)).toBe(403);
  expect(res.headers.get('location')).toBeNull();
  expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(res.headers.getSetCookie()).toEqual([]);
  expect(html).toContain('<h1>Form not accepted</h1>');
  expect(html).toContain('<code>invalid_csrf</code>');
  expect(html).toContain(description);
}
