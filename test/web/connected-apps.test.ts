import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl, pkcePair, postForm, registerPublicClient } from '../helpers/oauth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { parseForms, UserAgent } from '../helpers/user-agent.ts';

describe.each(STORE_KINDS)('connected apps page (%s)', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  async function connect(agent: UserAgent, user: { email: string; password: string }, name: string) {
    const clientId = await registerPublicClient(server.issuer, { client_name: name });
    const { verifier, challenge } = pkcePair();
    const redirectUri = 'http://127.0.0.1:50505/callback';
    const callback = await agent.authorize(
      authorizeUrl(server.issuer, { response_type: 'code', client_id: clientId, redirect_uri: redirectUri, scope: 'openid profile', code_challenge: challenge, code_challenge_method: 'S256', state: 's' }),
      user,
    );
    const token = await postForm(`${server.issuer}/api/oauth/token`, { grant_type: 'authorization_code', code: callback.searchParams.get('code')!, redirect_uri: redirectUri, client_id: clientId, code_verifier: verifier });
    expect(token.status).toBe(200);
    return { clientId, accessToken: token.json.access_token as string, refreshToken: token.json.refresh_token as string };
  }

  it('sends a visitor who is not signed in to the sign-in form, and back to the page afterwards', async () => {
    const user = await server.addUser('student');
    const agent = new UserAgent(server.issuer);
    const first = await agent.navigate('/account/apps');
    expect('html' in first && first.html).toContain('name="password"');
    const form = parseForms('html' in first ? first.html : '').find((f) => f.action === '/oauth/sign-in')!;
    expect(form.fields.return_to).toBe('/account/apps');
    const after = await agent.submit(form, { email: user.email, password: user.password });
    expect('html' in after && after.html).toContain('No app has access to your account');
  });

  it('lists an approved app and disconnecting it revokes its tokens at once', async () => {
    const user = await server.addUser('owner');
    const agent = new UserAgent(server.issuer);
    const app = await connect(agent, user, 'Grading Assistant');
    const other = await connect(agent, user, 'Course Exporter');

    const page = await agent.navigate('/account/apps');
    if (!('html' in page)) throw new Error('expected a page');
    expect(page.html).toContain('Grading Assistant');
    expect(page.html).toContain('Course Exporter');
    expect(page.headers.get('x-frame-options')).toBe('DENY');

    const form = parseForms(page.html).find((f) => f.action === '/account/apps/disconnect' && f.fields.client_id === app.clientId)!;
    const after = await agent.submit(form, {});
    if (!('html' in after)) throw new Error('expected a page');
    expect(after.html).toContain('was disconnected');
    expect(after.html).not.toContain('Grading Assistant');
    expect(after.html).toContain('Course Exporter');

    const info = await fetch(`${server.issuer}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${app.accessToken}` } });
    expect(info.status).toBe(401);
    const refresh = await postForm(`${server.issuer}/api/oauth/token`, { grant_type: 'refresh_token', refresh_token: app.refreshToken, client_id: app.clientId });
    expect(refresh.json.error).toBe('invalid_grant');
    const stillFine = await fetch(`${server.issuer}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${other.accessToken}` } });
    expect(stillFine.status).toBe(200);
  });

  it('refuses a disconnect without the form token, keeping the app connected', async () => {
    const user = await server.addUser('owner');
    const agent = new UserAgent(server.issuer);
    const app = await connect(agent, user, 'Forged Target');
    const res = await agent.request('/account/apps/disconnect', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: app.clientId }).toString(),
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toContain('text/html');
    const info = await fetch(`${server.issuer}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${app.accessToken}` } });
    expect(info.status).toBe(200);
  });

  it('signs out: the session ends and the page asks to sign in again', async () => {
    const user = await server.addUser('student');
    const agent = new UserAgent(server.issuer);
    await connect(agent, user, 'Any App');
    const page = await agent.navigate('/account/apps');
    const signOut = parseForms('html' in page ? page.html : '').find((f) => f.action === '/oauth/sign-out')!;
    await agent.submit(signOut, {});
    const again = await agent.navigate('/account/apps');
    expect('html' in again && again.html).toContain('name="password"');
  });
});
