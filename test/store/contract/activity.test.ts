/**
 * The store contract of the activity log (src/store/repositories/activity.ts),
 * run against every store kind: SQLite always, PostgreSQL when
 * TEST_DATABASE_URL is set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivityEntry, Store } from '../../../src/store/types.ts';
import { STORE_KINDS } from '../../helpers/stores.ts';
import { T0, id, openContractStore } from '../../helpers/store-contract.ts';

describe.each(STORE_KINDS)('store contract: activity (%s)', (kind) => {
  let store: Store;
  beforeAll(async () => ({ store } = await openContractStore(kind)));
  afterAll(() => store?.close());

  const entry = (over: Partial<ActivityEntry> = {}): ActivityEntry => ({
    id: `act_${id()}`,
    at: T0,
    event: 'record.updated',
    userId: 'usr_a',
    clientId: 'lyc_app',
    clientName: 'An app',
    clientKind: 'self_registered',
    via: 'api',
    operation: 'updateCourse',
    recordType: 'courses',
    recordId: `crs_${id()}`,
    fields: ['title', 'status'],
    ...over,
  });

  it('gives back what was appended, times as numbers and fields as a list', async () => {
    const e = entry({ clientId: null, clientName: null, clientKind: null, recordType: null, recordId: null, fields: [], userId: null, via: 'web' });
    await store.activity.append(e);
    const [found] = (await store.activity.list({ limit: 10, event: 'record.updated', until: T0 + 1, since: T0 })).entries.filter((x) => x.id === e.id);
    expect(found).toEqual(e);
    expect(typeof found!.at).toBe('number');
  });

  it('lists newest first, ties by id, and pages by (at, id) without a gap or a repeat; every filter holds', async () => {
    const userId = `usr_${id()}`;
    const made = [0, 1, 1, 1, 2, 5].map((dt, i) => entry({ userId, at: T0 + 1000 + dt, operation: i % 2 ? 'create_record' : 'updateCourse' }));
    for (const e of made) await store.activity.append(e);
    const expected = [...made].sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : -1)).map((e) => e.id);
    const seen: string[] = [];
    let before: [number, string] | undefined;
    do {
      const page = await store.activity.list({ userId, limit: 2, ...(before ? { before } : {}) });
      seen.push(...page.entries.map((e) => e.id));
      before = page.next;
    } while (before);
    expect(seen).toEqual(expected);
    expect((await store.activity.list({ userId, limit: 10, operation: 'create_record' })).entries.map((e) => e.operation)).toEqual(['create_record', 'create_record', 'create_record']);
    expect((await store.activity.list({ userId, limit: 10, since: T0 + 1001, until: T0 + 1002 })).entries).toHaveLength(3);
    expect((await store.activity.list({ userId, limit: 10, recordId: made[0]!.recordId! })).entries.map((e) => e.id)).toEqual([made[0]!.id]);
    expect((await store.activity.list({ userId, limit: 10, clientId: 'lyc_other' })).entries).toEqual([]);
  });

  it('purges only what is older than the bound', async () => {
    const userId = `usr_${id()}`;
    const old = entry({ userId, at: 5 });
    const kept = entry({ userId, at: 10 });
    await store.activity.append(old);
    await store.activity.append(kept);
    expect(await store.activity.purgeBefore(10)).toBeGreaterThanOrEqual(1);
    expect((await store.activity.list({ userId, limit: 10 })).entries.map((e) => e.id)).toEqual([kept.id]);
  });
});
