/**
 * Consent the person shapes: unticked scopes stay out of the grant, "Allow
 * reading only" keeps the read scopes, and a chosen duration ends refresh;
 * /account/apps shows the end and extends it. In the code flow and the
 * device flow, over real HTTP on every store.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decide, openDevicePage, pollToken, registerDeviceClient, startDevice, submitCode } from '../helpers/device.ts';
import { codeExchangeFields, expectOAuthError, refreshRequest, registerClient, startFlowServer, type FlowServer, type RegisteredClient } from '../helpers/flow.ts';
import { authorizeUrl, pkcePair, postForm } from '../helpers/oauth.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { asPage, asRedirect, parseForms, UserAgent, type FormInfo, type Page } from '../helpers/user-agent.ts';

const HOUR = 3600_000;
const DAY = 24 * HOUR;

/** The form with these scopes' boxes unticked (a browser sends nothing for them). */
function untick(form: FormInfo, ...scopes: string[]): FormInfo {
  const fields = Object.fromEntries(Object.entries(form.fields).filter(([k]) => !scopes.some((s) => k === `grant_${s}`)));
  return { ...form, fields };
}

describe.each(STORE_KINDS)('consent the person shapes (%s)', (kind) => {
  let server: FlowServer;
  beforeAll(async () => {
    server = await startFlowServer(kind);
  });
  afterAll(() => server?.stop());

  interface AtConsent {
    agent: UserAgent;
    client: RegisteredClient;
    consent: Page;
    form: FormInfo;
    verifier: string;
    redirectUri: string;
  }

  /** Registers (unless given a client), signs in and stops at the consent page. */
  async function atConsent(scope: string, client?: RegisteredClient, agent = new UserAgent(server.issuer)): Promise<AtConsent> {
    const c = client ?? (await registerClient(server.issuer));
    const { verifier, challenge } = pkcePair();
    const redirectUri = 'http://127.0.0.1:43210/callback';
    const url = authorizeUrl(server.issuer, {
      response_type: 'code',
      client_id: c.clientId,
      redirect_uri: redirectUri,
      scope,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: randomBytes(4).toString('hex'),
    });
    let page = asPage(await agent.navigate(url));
    if (parseForms(page.html).some((f) => f.action === '/oauth/sign-in')) page = await agent.signIn(page, server.user);
    const form = parseForms(page.html).find((f) => f.action === '/oauth/authorize/decision')!;
    return { agent, client: c, consent: page, form, verifier, redirectUri };
  }

  /** Answers the consent form; the tokens its code is exchanged for (or the redirect, when refused). */
  async function answer(at: AtConsent, form: FormInfo, extra: Record<string, string>) {
    const redirect = asRedirect(await at.agent.submit(form, extra));
    const code = redirect.searchParams.get('code');
    if (!code) return { redirect };
    const res = await postForm(server.tokenEndpoint, codeExchangeFields({ ...at.client, code, redirectUri: at.redirectUri, verifier: at.verifier }));
    expect(res.status, res.text).toBe(200);
    return { redirect, tokens: res.json as { access_token: string; refresh_token: string; scope: string } };
  }

  it('each grantable scope has a ticked box, openid is fixed, and the duration defaults to 30 days', async () => {
    const at = await atConsent('openid courses:read courses:write');
    expect(at.consent.html).toContain('<input type="checkbox" name="grant_courses:write" value="on" checked>');
    expect(at.consent.html).toContain('<input type="checkbox" checked disabled> Confirm who you are (sign you in) <code>openid</code> (always)');
    expect(at.consent.html).toContain('<option value="30d" selected>For 30 days</option>');
    expect(at.consent.html).toContain('value="approve_read_only"');
    const before = server.deps.now();
    await answer(at, at.form, { decision: 'approve' });
    const grant = await server.deps.store.grants.find(server.user.id, at.client.clientId);
    expect(grant!.expiresAt! - before).toBeGreaterThanOrEqual(30 * DAY);
    expect(grant!.expiresAt! - before).toBeLessThan(30 * DAY + 60_000);
  });

  it('an unticked scope stays out of the code, the token and its answer; asking again for it shows the page again', async () => {
    const confidential = await registerClient(server.issuer, { confidential: true });
    const at = await atConsent('openid courses:read courses:write students:read', confidential);
    const { tokens } = await answer(at, untick(at.form, 'courses:write', 'students:read'), { decision: 'approve' });
    expect(tokens!.scope).toBe('openid courses:read');
    expect((await server.deps.store.grants.find(server.user.id, confidential.clientId))!.scope).toBe('openid courses:read');
    // A confidential client with a covering grant skips the page, but the narrowed grant does not cover the same request.
    const again = await atConsent('openid courses:read courses:write students:read', confidential, at.agent);
    expect(again.form).toBeDefined();
    // What the grant does cover still skips it.
    const covered = await at.agent.navigate(
      authorizeUrl(server.issuer, {
        response_type: 'code',
        client_id: confidential.clientId,
        redirect_uri: at.redirectUri,
        scope: 'openid courses:read',
        code_challenge: pkcePair().challenge,
        code_challenge_method: 'S256',
      }),
    );
    expect(asRedirect(covered).searchParams.get('code')).toBeTruthy();
  });

  it('"Allow reading only" grants the read and identity scopes, whatever is ticked', async () => {
    const at = await atConsent('openid profile courses:read courses:write students:read students:write');
    const { tokens } = await answer(at, at.form, { decision: 'approve_read_only' });
    expect(tokens!.scope).toBe('openid profile courses:read students:read');
  });

  it('every box unticked is a refusal: access_denied on the redirect, no code', async () => {
    const at = await atConsent('courses:read courses:write');
    const { redirect } = await answer(at, untick(at.form, 'courses:read', 'courses:write'), { decision: 'approve' });
    expect(redirect.searchParams.get('error')).toBe('access_denied');
    expect(redirect.searchParams.get('code')).toBeNull();
  });

  it('an hour: refresh works within it and is invalid_grant after it, while an access token lives to its own expiry; extending brings refresh back', async () => {
    const thaw = server.freezeClock();
    try {
      const at = await atConsent('openid courses:read');
      const { tokens } = await answer(at, at.form, { decision: 'approve', duration: '1h' });
      server.advance(HOUR - 60_000);
      const refreshed = await refreshRequest(server, at.client, tokens!.refresh_token);
      expect(refreshed.status, refreshed.text).toBe(200);
      const late = refreshed.json as { access_token: string; refresh_token: string };
      server.advance(60_000);
      expectOAuthError(await refreshRequest(server, at.client, late.refresh_token), 400, 'invalid_grant');
      // The access token from the last refresh still works until its own expiry.
      const me = await fetch(`${server.issuer}/api/oauth/userinfo`, { headers: { authorization: `Bearer ${late.access_token}` } });
      expect(me.status).toBe(200);

      const apps = asPage(await at.agent.navigate('/account/apps'));
      const entry = apps.html.split('<li class="app">').find((li) => li.includes(at.client.clientId))!;
      expect(entry).toMatch(/Access ended \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
      const extend = parseForms(apps.html).find((f) => f.action === '/account/apps/extend' && f.fields.client_id === at.client.clientId)!;
      const after = asPage(await at.agent.submit(extend, { duration: 'forever' }));
      expect(after.html).toContain('The app may act for you until you disconnect it.');
      expect(after.html.split('<li class="app">').find((li) => li.includes(at.client.clientId))).toContain('Until you disconnect it.');
      // A refresh token whose consent had ended works again once it is extended (its own lifetime permitting).
      expect((await refreshRequest(server, at.client, late.refresh_token)).status).toBe(200);
    } finally {
      thaw();
    }
  });

  it('/account/apps shows when access ends, and extend refuses an unknown duration with a page', async () => {
    const at = await atConsent('openid courses:read');
    await answer(at, at.form, { decision: 'approve', duration: '1d' });
    const apps = asPage(await at.agent.navigate('/account/apps'));
    expect(apps.html.split('<li class="app">').find((li) => li.includes(at.client.clientId))).toMatch(/Access ends \d{4}-\d\d-\d\d \d\d:\d\d UTC\./);
    const extend = parseForms(apps.html).find((f) => f.action === '/account/apps/extend' && f.fields.client_id === at.client.clientId)!;
    const refused = await at.agent.submit(extend, { duration: 'a-century' });
    expect('status' in refused && refused.status).toBe(400);
  });

  it('the device flow: the same boxes and duration on the device consent page', async () => {
    const client = await registerDeviceClient(server.issuer);
    const start = await startDevice(server.issuer, client, { scope: 'openid courses:read courses:write' });
    const agent = new UserAgent(server.issuer);
    const consent = await submitCode(agent, await openDevicePage(agent, start.verification_uri_complete, server.user), start.user_code);
    const form = parseForms(consent.html).find((f) => f.action === '/oauth/device/decision')!;
    expect(form.fields['grant_courses:write']).toBe('on');
    const before = server.deps.now();
    await decide(agent, { ...consent, html: consent.html.replace('name="grant_courses:write" value="on" checked', 'name="grant_courses:write" value="on"') }, 'approve');
    const tokens = await pollToken(server.issuer, client, start.device_code);
    expect(tokens.json.scope).toBe('openid courses:read');
    const grant = await server.deps.store.grants.find(server.user.id, client.clientId);
    expect(grant!.expiresAt! - before).toBeGreaterThanOrEqual(30 * DAY);
  });
});
