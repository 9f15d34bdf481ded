/**
 * Webhooks under crashes and beside other instances: an event written with
 * its change survives a kill -9 of the server before the delivery (and one
 * killed in the middle of an attempt is sent again once its lease runs out),
 * on a SQLite file and on PostgreSQL; and two instances on one PostgreSQL
 * database deliver each event exactly once per subscription.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/cli/users.ts';
import { AREAS } from '../../src/platform/areas.ts';
import { RecordService } from '../../src/platform/records.ts';
import { WebhookService } from '../../src/platform/webhooks/subscriptions.ts';
import { openStore } from '../../src/store/kysely/open.ts';
import type { FlowServer } from '../helpers/flow.ts';
import { freshPostgresDatabase } from '../helpers/postgres-database.ts';
import { api, marker, tokenSource } from '../helpers/records.ts';
import { freePort, startTestServer, type TestServer } from '../helpers/server.ts';
import { spawnServe, type ServeProcess } from '../helpers/spawn-serve.ts';
import { databaseConfig, STORE_KINDS } from '../helpers/stores.ts';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

const PG = process.env.TEST_DATABASE_URL;
const KEYS_SECRET = 'webhooks-instances-keys-secret-0123456789abcdef';

async function killHard(server: ServeProcess): Promise<void> {
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGKILL');
  await exited;
}

describe.each(STORE_KINDS)('kill -9 between a change and its delivery (%s)', (kind) => {
  let databaseUrl: string;
  let drop = async () => {};
  let receiver: WebhookReceiver;
  let running: ServeProcess | undefined;
  const owner = { email: 'owner@webhooks.test', password: 'a long enough password', id: '' };
  let port: number;

  beforeAll(async () => {
    if (kind === 'postgres') {
      const db = await freshPostgresDatabase();
      databaseUrl = db.url;
      drop = db.drop;
    } else databaseUrl = join(mkdtempSync(join(tmpdir(), 'lyceum-webhooks-')), 'lyceum.sqlite');
    const store = openStore(databaseConfig(databaseUrl));
    await store.migrate();
    owner.id = (await createUser(store, { email: owner.email, password: owner.password, name: 'Owner', role: 'owner' })).id;
    await store.close();
    receiver = await startReceiver();
    port = await freePort();
  });
  afterAll(async () => {
    if (running?.child.exitCode === null) await running.stop();
    await receiver?.close();
    await drop();
  });

  /** `lyceum serve` on the test's database and port; `env` adds the webhook settings. */
  const serve = (env: Record<string, string>) =>
    spawnServe({ LOG_LEVEL: 'warn', PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: databaseUrl, KEYS_SECRET, RATE_LIMIT_SIGN_IN_PER_MINUTE: '0', ...env });

  it('the event is delivered by the next process; an attempt cut short is sent again after its lease', async () => {
    // First process: its worker looks once at start, then not for ten minutes.
    running = await serve({ WEBHOOK_POLL_INTERVAL_MS: '600000' });
    const issuer = `http://127.0.0.1:${port}`;
    const token = await tokenSource({ issuer, user: owner, tokenEndpoint: `${issuer}/api/oauth/token` } as FlowServer)('school:write students:read students:write');
    const sub = await api(issuer, 'POST', '/webhooks', { token, body: { url: receiver.url, events: ['student.created'] } });
    expect(sub.status, sub.text).toBe(201);
    receiver.secret = String(sub.json.secret);
    const student = await api(issuer, 'POST', '/students', { token, body: { name: 'Crash', email: `${marker()}@example.test` } });
    expect(student.status, student.text).toBe(201);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.received).toHaveLength(0);
    await killHard(running);

    // Second process, polling often: the committed event goes out.
    running = await serve({ WEBHOOK_POLL_INTERVAL_MS: '50', WEBHOOK_TIMEOUT_MS: '1000' });
    const [first] = await receiver.waitFor(1);
    expect(first!.payload).toEqual({ type: 'student.created', timestamp: student.json.created_at, data: student.json });

    // Now a receiver that holds the request open, and the process killed while it waits.
    receiver.answer = (_r, n) => (n === 1 ? null : 204);
    const second = await api(issuer, 'POST', '/students', { token, body: { name: 'Mid-flight', email: `${marker()}@example.test` } });
    await receiver.waitFor(1, (r) => r.payload?.data.id === second.json.id);
    await killHard(running);
    // The next process sends it again once the dead one's lease (2 × 1 s + 1 s) has run out.
    running = await serve({ WEBHOOK_POLL_INTERVAL_MS: '50', WEBHOOK_TIMEOUT_MS: '1000' });
    const both = await receiver.waitFor(2, (r) => r.payload?.data.id === second.json.id);
    expect(both.map((r) => r.status)).toEqual([0, 204]);
    expect(both[0]!.id).toBe(both[1]!.id);
    // The receiver has answered; the process records the success just after, so the log is read until it shows (at most 10 s).
    const deliveries = async () => (await api(issuer, 'GET', `/webhooks/${String(sub.json.id)}/deliveries`, { token })).data.map((d) => [d.status, d.attempts]);
    let log = await deliveries();
    for (const until = Date.now() + 10_000; log.some(([status]) => status !== 'succeeded') && Date.now() < until; log = await deliveries()) await new Promise((r) => setTimeout(r, 50));
    expect(log).toEqual([
      ['succeeded', 2],
      ['succeeded', 1],
    ]);
    expect(await running.stop()).toBe(0);
  }, 90_000);
});

describe.skipIf(!PG)('two instances on one PostgreSQL database', () => {
  let database: Awaited<ReturnType<typeof freshPostgresDatabase>>;
  let a: TestServer;
  let b: TestServer;
  let receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    database = await freshPostgresDatabase();
    const shared = { DATABASE_URL: database.url, KEYS_SECRET, PUBLIC_URL: `http://127.0.0.1:${await freePort()}`, WEBHOOK_POLL_INTERVAL_MS: '10' };
    [a, b] = await Promise.all([startTestServer('postgres', shared), startTestServer('postgres', shared)]);
    receivers = await Promise.all([startReceiver(), startReceiver()]);
  });
  afterAll(async () => {
    await Promise.all([a, b].filter(Boolean).map((s) => s.close()));
    await Promise.all(receivers.map((r) => r.close()));
    await database?.drop();
  });

  it('each event reaches each subscription exactly once', async () => {
    for (const r of receivers) {
      const created = await new WebhookService(a.deps).create({ url: r.url, events: ['student.created'] }, { scopes: new Set(['school:write', 'students:read']), resource: 'api' });
      r.secret = String(created.secret);
    }
    const N = 40;
    const services = [new RecordService(a.deps), new RecordService(b.deps)];
    const students = await Promise.all(Array.from({ length: N }, (_, i) => services[i % 2]!.create(AREAS.students, { name: `S${i}`, email: `${marker()}@example.test` })));
    for (const r of receivers) await r.waitFor(N);
    // Time for a duplicate to show up, were either instance to send one.
    await new Promise((r) => setTimeout(r, 1000));
    for (const r of receivers) {
      expect(r.received.every((x) => x.verified)).toBe(true);
      const ids = r.received.map((x) => x.id);
      expect(ids).toHaveLength(N);
      expect(new Set(ids).size).toBe(N);
      expect(new Set(r.received.map((x) => x.payload!.data.id))).toEqual(new Set(students.map((s) => s.id)));
    }
  });
});
