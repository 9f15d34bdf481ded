/**
 * SQLite while another process holds the write lock (the CLI, a backup, a
 * `sqlite3` shell in BEGIN IMMEDIATE): reads go on at full speed, the event
 * loop never stalls, and a write waits a bounded time off the event loop,
 * then succeeds once the lock is released or answers 503
 * temporarily_unavailable with Retry-After, never 500, leaving nothing behind.
 */
import type { ChildProcess } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import SQLite from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { register } from '../helpers/oauth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { holdLockInAnotherProcess } from '../helpers/sqlite-lock.ts';
import { freshDatabaseUrl } from '../helpers/stores.ts';

/**
 * Each read must answer this fast while the lock is held, and the event loop
 * may stand still no longer (ms): far under the 1.5 s the lock is held
 * (measured: reads at most about 30 ms, the event loop's longest pause about 50 ms).
 */
const READ_BOUND_MS = 200;
const EVENT_LOOP_BOUND_MS = 200;

const CLIENT = { client_name: 'Locked-out CLI', redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none' };

/** GETs discovery and the anonymous catalog every 25 ms until `until` settles; each one's time in ms. */
async function readWhile(issuer: string, until: Promise<unknown>): Promise<{ path: string; status: number; ms: number }[]> {
  let done = false;
  void until.finally(() => (done = true));
  const timings: { path: string; status: number; ms: number }[] = [];
  while (!done) {
    for (const path of ['/.well-known/openid-configuration', '/api/v1/courses?limit=5']) {
      const started = performance.now();
      const res = await fetch(`${issuer}${path}`);
      await res.arrayBuffer();
      timings.push({ path, status: res.status, ms: performance.now() - started });
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return timings;
}

describe('SQLite locked by another process', () => {
  let server: TestServer | undefined;
  let holder: ChildProcess | undefined;
  afterEach(async () => {
    holder?.kill('SIGKILL');
    await server?.close();
    server = undefined;
  });

  it('keeps reads fast and the event loop free, and lets a registration wait for the release, then succeed', async () => {
    const file = await freshDatabaseUrl('sqlite');
    server = await startTestServer('sqlite', { DATABASE_URL: file, SQLITE_BUSY_TIMEOUT_MS: '5000' });
    // The first request of each route compiles its schemas: not what is measured here.
    await readWhile(server.issuer, Promise.resolve());
    const lag = monitorEventLoopDelay({ resolution: 10 });
    const lock = await holdLockInAnotherProcess(file, 1500);
    holder = lock.child;
    lag.enable();
    const started = performance.now();
    const registration = register(server.issuer, CLIENT);
    const reads = await readWhile(server.issuer, registration);
    const { status, json } = await registration;
    const waited = performance.now() - started;
    lag.disable();
    await lock.released;

    expect(status, JSON.stringify(json)).toBe(201);
    // It waited for the lock (held about 1.5 s) instead of failing at once.
    expect(waited).toBeGreaterThan(1000);
    expect(reads.length).toBeGreaterThan(10);
    for (const r of reads) expect(r, `${r.path} took ${Math.round(r.ms)} ms`).toMatchObject({ status: 200 });
    expect(Math.max(...reads.map((r) => r.ms))).toBeLessThan(READ_BOUND_MS);
    // The event loop never stood still for long (nanoseconds).
    expect(lag.max / 1e6).toBeLessThan(EVENT_LOOP_BOUND_MS);
  });

  it('answers 503 temporarily_unavailable with Retry-After past SQLITE_BUSY_TIMEOUT_MS, writes nothing, and works again after the release', async () => {
    const file = await freshDatabaseUrl('sqlite');
    server = await startTestServer('sqlite', { DATABASE_URL: file, SQLITE_BUSY_TIMEOUT_MS: '400' });
    const countClients = () => {
      const db = new SQLite(file, { readonly: true });
      try {
        return (db.prepare('select count(*) as n from clients').get() as { n: number }).n;
      } finally {
        db.close();
      }
    };
    const before = countClients();
    const lock = await holdLockInAnotherProcess(file, 2500);
    holder = lock.child;

    const started = performance.now();
    const res = await fetch(`${server.issuer}/api/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(CLIENT),
    });
    const ms = performance.now() - started;
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ error: 'temporarily_unavailable', error_description: expect.stringMatching(/\S/) });
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    // It waited its bound, and not much longer.
    expect(ms).toBeGreaterThanOrEqual(400);
    expect(ms).toBeLessThan(1500);

    // Reads still answer while the lock is held.
    const read = await fetch(`${server.issuer}/api/v1/courses?limit=5`);
    expect(read.status).toBe(200);

    await lock.released;
    expect(countClients()).toBe(before);
    const after = await register(server.issuer, CLIENT);
    expect(after.status, JSON.stringify(after.json)).toBe(201);
    expect(countClients()).toBe(before + 1);
  });
});
