/**
 * A password change signs the user out everywhere (src/users/password-change.ts):
 * over the API (PATCH /api/v1/account, the calling token included) and with
 * `lyceum users passwd`, against the real server and the real CLI.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../../src/users/passwords.ts';
import { readJson } from '../helpers/bearer.ts';
import { isActive, obtainTokens, refreshRequest, startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { parseForms, UserAgent } from '../helpers/user-agent.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const KEYS_SECRET = 'password-change-keys-secret-0123456789abcdef';

/** `node bin/lyceum.js ...args` with only these settings. */
function lyceum(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['bin/lyceum.js', ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'silent', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout: String(stdout), stderr: String(stderr) }),
    );
  });
}

/** A bearer GET; the status and error code it gets. */
async function bearerGet(server: FlowServer, path: string, token: string) {
  const res = await readJson(await fetch(`${server.issuer}${path}`, { headers: { authorization: `Bearer ${token}` } }));
  return { status: res.status, error: res.json.error };
}

describe.each(STORE_KINDS)('a password change signs the user out everywhere (%s)', (kind) => {
  let server: FlowServer;
  /** Another user, whose session and tokens must survive. */
  let bystander: FlowServer['user'];

  beforeAll(async () => {
    server = await startFlowServer(kind, { KEYS_SECRET });
    bystander = await server.addUser('owner');
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  /** A browser signed in on /account/apps as `user`. */
  async function browserOn(user: FlowServer['user']): Promise<UserAgent> {
    const agent = new UserAgent(server.issuer);
    const first = await agent.navigate('/account/apps');
    if ('redirect' in first) throw new Error('unexpected redirect');
    const form = parseForms(first.html).find((f) => f.action === '/oauth/sign-in')!;
    const page = await agent.submit(form, { email: user.email, password: user.password });
    if ('redirect' in page || page.status !== 200 || page.url !== `${server.issuer}/account/apps`) throw new Error('sign-in to /account/apps failed');
    return agent;
  }

  /** What the user holds before the change: a browser session, and two apps' tokens (two more sessions, four tokens). */
  async function signedInEverywhere(me: FlowServer['user']) {
    const browser = await browserOn(me);
    const caller = await obtainTokens({ ...server, user: me }, { scope: 'account:write' });
    const app = await obtainTokens({ ...server, user: me }, { scope: 'courses:read', confidential: true });
    const otherBrowser = await browserOn(bystander);
    const otherApp = await obtainTokens({ ...server, user: bystander }, { scope: 'courses:read' });
    // Everything works beforehand.
    expect((await browser.request('/account/apps')).status).toBe(200);
    expect(await bearerGet(server, '/api/v1/courses', app.tokens.access_token)).toEqual({ status: 200, error: undefined });
    return { browser, caller, app, otherBrowser, otherApp };
  }

  async function expectSignedOut(held: Awaited<ReturnType<typeof signedInEverywhere>>) {
    const { browser, caller, app, otherBrowser, otherApp } = held;
    // The browser session no longer reaches the connected-apps page: back to sign-in.
    const apps = await browser.request('/account/apps');
    expect(apps.status).toBe(303);
    expect(apps.headers.get('location')).toBe('/oauth/sign-in?return_to=%2Faccount%2Fapps');
    // Every token is refused and inactive, at both clients.
    expect(await bearerGet(server, '/api/v1/account', caller.tokens.access_token)).toEqual({ status: 401, error: 'invalid_token' });
    expect(await bearerGet(server, '/api/v1/courses', app.tokens.access_token)).toEqual({ status: 401, error: 'invalid_token' });
    for (const [client, token] of [
      [caller.flow, caller.tokens.access_token],
      [caller.flow, caller.tokens.refresh_token!],
      [app.flow, app.tokens.access_token],
      [app.flow, app.tokens.refresh_token!],
    ] as const) {
      expect(await isActive(server, client, token)).toBe(false);
    }
    const refresh = await refreshRequest(server, app.flow, app.tokens.refresh_token!);
    expect({ status: refresh.status, error: refresh.json.error }).toEqual({ status: 400, error: 'invalid_grant' });
    // Another user keeps their session and tokens.
    expect((await otherBrowser.request('/account/apps')).status).toBe(200);
    expect(await isActive(server, otherApp.flow, otherApp.tokens.access_token)).toBe(true);
    expect(await bearerGet(server, '/api/v1/courses', otherApp.tokens.access_token)).toEqual({ status: 200, error: undefined });
  }

  it('PATCH /api/v1/account: every session ends and every token is revoked, the calling one too; the answer says how many', async () => {
    const me = await server.addUser('owner');
    const held = await signedInEverywhere(me);
    const next = 'the new api password';
    const res = await readJson(
      await fetch(`${server.issuer}/api/v1/account`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${held.caller.tokens.access_token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ current_password: me.password, new_password: next }),
      }),
    );
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ email: me.email, sessions_ended: 3, tokens_revoked: 4 });
    const user = await server.deps.store.users.findByEmail(me.email);
    expect(await verifyPassword(user!.passwordHash, next)).toBe(true);
    await expectSignedOut(held);
  });

  it('PATCH /api/v1/account with only a name ends nothing', async () => {
    const caller = await obtainTokens({ ...server, user: await server.addUser('student') }, { scope: 'account:write' });
    const res = await readJson(
      await fetch(`${server.issuer}/api/v1/account`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${caller.tokens.access_token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Renamed' }),
      }),
    );
    expect(res.status, res.text).toBe(200);
    expect(res.json).not.toHaveProperty('sessions_ended');
    expect(res.json).not.toHaveProperty('tokens_revoked');
    expect(await isActive(server, caller.flow, caller.tokens.access_token)).toBe(true);
  });

  it('lyceum users passwd: the same, and it prints what it ended', async () => {
    const me = await server.addUser('owner');
    const held = await signedInEverywhere(me);
    const next = 'the new cli password';
    const run = await lyceum(['users', 'passwd', '--email', me.email, '--password', next], { DATABASE_URL: server.databaseUrl, KEYS_SECRET });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect(run.stdout.trim()).toBe(`password changed for ${me.email}; signed out everywhere: 3 browser sessions ended, 4 tokens revoked`);
    const user = await server.deps.store.users.findByEmail(me.email);
    expect(await verifyPassword(user!.passwordHash, next)).toBe(true);
    await expectSignedOut(held);
  }, 120_000);
});
