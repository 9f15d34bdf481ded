/**
 * The webhook outbox and delivery claims as store contracts, on each store:
 * events are written in the change's transaction (a failure of either undoes
 * both), fan out to the subscriptions that asked for them, and racing claims
 * never take one delivery twice while its lease holds.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/kysely/open.ts';
import type { OutboxEvent, Store, WebhookSubscription } from '../../src/store/types.ts';
import { databaseConfig, freshDatabaseUrl, STORE_KINDS } from '../helpers/stores.ts';

const T0 = 1_750_000_000_000;
const rid = (p: string) => `${p}_${randomBytes(9).toString('base64url')}`;

const event = (type: string, over: Partial<OutboxEvent> = {}): OutboxEvent => ({ id: rid('msg'), type, payload: JSON.stringify({ type }), createdAt: T0, ...over });

const student = () => ({ id: rid('stu'), name: 'S', email: `${rid('e')}@school.test`, status: 'active', created_at: T0, updated_at: T0 });

function subscription(events: string[], over: Partial<WebhookSubscription> = {}): WebhookSubscription {
  return {
    id: rid('wh'),
    url: 'http://127.0.0.1:9/x',
    events,
    description: null,
    sealedSecret: 'sealed',
    enabled: true,
    disabledReason: null,
    failedDeliveries: 0,
    createdAt: T0,
    updatedAt: T0,
    ...over,
  };
}

describe.each(STORE_KINDS)('webhook outbox (%s)', (kind) => {
  let store: Store;
  let students: WebhookSubscription;
  let orders: WebhookSubscription;

  beforeAll(async () => {
    store = openStore(databaseConfig(await freshDatabaseUrl(kind)));
    await store.migrate();
    students = subscription(['student.created']);
    orders = subscription(['order.paid', 'student.created']);
    await store.webhooks.create(students);
    await store.webhooks.create(orders);
    await store.webhooks.create(subscription(['student.created'], { enabled: false, disabledReason: 'off' }));
  });
  afterAll(async () => {
    await store?.close();
  });

  const deliveriesOf = async (sub: WebhookSubscription) => (await store.webhooks.listDeliveries(sub.id, 100)).rows;

  it('an event that cannot be written undoes its change', async () => {
    const row = student();
    const e = event('student.created');
    // The second event has the first one's id: its insert fails inside the transaction.
    await expect(store.records.insert('students', row, [e, { ...e }])).rejects.toThrow();
    expect(await store.records.get('students', String(row.id))).toBeUndefined();
    expect((await deliveriesOf(students)).filter((d) => d.eventId === e.id)).toEqual([]);
  });

  it('a change whose events fail is undone; the events see the row before and after', async () => {
    const row = student();
    await store.records.insert('students', row);
    await expect(
      store.records.update('students', String(row.id), { name: 'Changed' }, () => {
        throw new Error('no events');
      }),
    ).rejects.toThrow('no events');
    expect((await store.records.get('students', String(row.id)))!.name).toBe('S');
    const seen: unknown[] = [];
    await store.records.update('students', String(row.id), { name: 'Changed' }, (before, after) => (seen.push(before.name, after.name), []));
    expect(seen).toEqual(['S', 'Changed']);
    expect(await store.records.update('students', 'stu_none', { name: 'x' }, () => [])).toBeUndefined();
  });

  it('each event gets one delivery per enabled subscription that asked for its type; nobody asking stores nothing', async () => {
    const created = event('student.created');
    const paid = event('order.paid');
    const nobody = event('course.published');
    await store.records.insert('students', student(), [created, paid, nobody]);
    expect((await deliveriesOf(students)).filter((d) => [created.id, paid.id, nobody.id].includes(d.eventId)).map((d) => d.eventType)).toEqual(['student.created']);
    expect(
      (await deliveriesOf(orders))
        .filter((d) => [created.id, paid.id, nobody.id].includes(d.eventId))
        .map((d) => d.eventType)
        .sort(),
    ).toEqual(['order.paid', 'student.created']);
  });

  it('racing claims never take one delivery twice while its lease holds; after the lease another may', async () => {
    // Everything pending so far is claimed and finished first, so only this test's rows remain.
    for (let c = await store.webhooks.claimDue(T0 + 1, T0 + 2, 100); c.length; c = await store.webhooks.claimDue(T0 + 1, T0 + 2, 100)) {
      for (const claim of c) await store.webhooks.finish(claim, { ok: true, statusCode: 200, durationMs: 1, at: T0 + 1 }, 5);
    }
    const events = Array.from({ length: 15 }, () => event('student.created', { createdAt: T0 + 10 }));
    await store.records.insert('students', student(), events);
    const now = T0 + 10;
    const claims = (await Promise.all(Array.from({ length: 4 }, () => store.webhooks.claimDue(now, now + 1000, 10)))).flat();
    // 15 events × 2 subscriptions that want student.created.
    expect(claims).toHaveLength(30);
    expect(new Set(claims.map((c) => c.id)).size).toBe(30);
    expect(claims.every((c) => c.attempt === 1)).toBe(true);
    expect(await store.webhooks.claimDue(now + 999, now + 2000, 100)).toEqual([]);
    const again = await store.webhooks.claimDue(now + 1000, now + 3000, 100);
    expect(new Set(again.map((c) => c.id))).toEqual(new Set(claims.map((c) => c.id)));
    expect(again.every((c) => c.attempt === 2)).toBe(true);
  });
});

describe.each(STORE_KINDS)('webhook fan-out to many subscriptions (%s)', (kind) => {
  let store: Store;
  // More than one INSERT of delivery rows can bind on either database (SQLite refused 2,521, PostgreSQL 5,042).
  const N = 5100;

  beforeAll(async () => {
    store = openStore(databaseConfig(await freshDatabaseUrl(kind)));
    await store.migrate();
    for (let i = 0; i < N; i++) await store.webhooks.create(subscription(['student.created'], { createdAt: T0 + i }));
  }, 120_000);
  afterAll(async () => {
    await store?.close();
  });

  it('counts every subscription', async () => {
    expect(await store.webhooks.count()).toBe(N);
  });

  it('a change whose event every subscription wants is stored, with one delivery for each', async () => {
    const row = student();
    const e = event('student.created');
    await store.records.insert('students', row, [e]);
    expect(await store.records.get('students', String(row.id))).toBeDefined();
    const claimed = await store.webhooks.claimDue(T0 + 1, T0 + 2, N + 10);
    expect(claimed).toHaveLength(N);
    expect(new Set(claimed.map((c) => c.subscription.id)).size).toBe(N);
    expect(claimed.every((c) => c.eventId === e.id)).toBe(true);
  });
});
