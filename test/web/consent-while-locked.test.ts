/**
 * An approval while another process holds SQLite's write lock past
 * SQLITE_BUSY_TIMEOUT_MS: the code cannot be saved, so the person gets the
 * 503 page that asks them to send the form again, never a redirect that ends
 * the app's authorization; once the lock is gone the same form gets the code.
 */
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { browserApp } from '../helpers/browser-app.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { holdLockInAnotherProcess } from '../helpers/sqlite-lock.ts';
import { freshDatabaseUrl } from '../helpers/stores.ts';
import { asPage, parseForms } from '../helpers/user-agent.ts';

const REDIRECT = 'http://127.0.0.1:61243/callback';

describe('consent approved while SQLite is locked by another process', () => {
  let server: TestServer | undefined;
  let holder: ChildProcess | undefined;
  afterEach(async () => {
    holder?.kill('SIGKILL');
    await server?.close();
    server = undefined;
  });

  it('answers the approval with the 503 page and Retry-After, no redirect, and the same form works after the release', async () => {
    const file = await freshDatabaseUrl('sqlite');
    server = await startTestServer('sqlite', { DATABASE_URL: file, SQLITE_BUSY_TIMEOUT_MS: '100' });
    const { user, agent, link } = await browserApp(server, { name: 'Locked Consent Probe', redirectUri: REDIRECT, scope: 'courses:read', state: 'st-locked' });
    const signIn = asPage(await agent.navigate(link));
    const consent = await agent.signIn(signIn, user);
    const decision = parseForms(consent.html).find((f) => f.action === '/oauth/authorize/decision')!;
    const approve = () =>
      agent.request(decision.action, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...decision.fields, decision: 'approve' }).toString(),
      });

    const lock = await holdLockInAnotherProcess(file, 2500);
    holder = lock.child;
    const refused = await approve();
    const html = await refused.text();
    expect(refused.status, refused.headers.get('location') ?? html.slice(0, 400)).toBe(503);
    expect(refused.headers.get('location')).toBeNull();
    expect(refused.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(html).toContain('<h1>Try again shortly</h1>');
    expect(html).toContain('Error code: <code>temporarily_unavailable</code>.');

    await lock.released;
    const approved = await approve();
    expect(approved.status).toBe(303);
    const location = new URL(approved.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    expect(location.searchParams.get('code')).toMatch(/\S/);
    expect(location.searchParams.get('state')).toBe('st-locked');
  });
});
