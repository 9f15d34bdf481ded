/**
 * The store contract of device authorizations (RFC 8628), run against every
 * store kind: SQLite always, PostgreSQL when TEST_DATABASE_URL is set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/store/kysely/open.ts';
import type { Client, DeviceAuthorization, PollOutcome, Store, User } from '../../../src/store/types.ts';
import { databaseConfig, STORE_KINDS } from '../../helpers/stores.ts';
import { T0, expectNumericTimes, hash, newDeviceAuthorization, newToken, openContractStore } from '../../helpers/store-contract.ts';

describe.each(STORE_KINDS)('store contract: device authorizations (%s)', (kind) => {
  let store: Store, url: string, user: User, client: Client;
  beforeAll(async () => ({ store, url, user, client } = await openContractStore(kind)));
  afterAll(() => store?.close());

  const approval = (authTime = T0 - 1000) => ({ status: 'approved' as const, userId: user.id, scope: 'courses:read', authTime });

  it('create stores it as given; a taken user code hash stores nothing and says so', async () => {
    const a = newDeviceAuthorization(client.id, { resource: 'http://127.0.0.1:3000/mcp' });
    expect(await store.deviceAuthorizations.create(a)).toBe(true);
    const found = await store.deviceAuthorizations.find(a.hash);
    expect(found).toEqual(a);
    expectNumericTimes(found!, ['expiresAt', 'createdAt', 'interval']);
    expect(await store.deviceAuthorizations.findByUserCode(a.userCodeHash)).toEqual(a);
    const clash = newDeviceAuthorization(client.id, { userCodeHash: a.userCodeHash });
    expect(await store.deviceAuthorizations.create(clash)).toBe(false);
    expect(await store.deviceAuthorizations.find(clash.hash)).toBeUndefined();
    expect(await store.deviceAuthorizations.findByUserCode(hash())).toBeUndefined();
  });

  it('decide: a pending, unexpired authorization takes one decision, which records who and what', async () => {
    const a = newDeviceAuthorization(client.id);
    await store.deviceAuthorizations.create(a);
    const decided = await store.deviceAuthorizations.decide(a.hash, approval(), T0 + 1);
    expect(decided).toEqual({ ...a, status: 'approved', userId: user.id, scope: 'courses:read', authTime: T0 - 1000 });
    expectNumericTimes(decided!, ['authTime']);
    expect(await store.deviceAuthorizations.decide(a.hash, { status: 'denied', userId: user.id }, T0 + 2)).toBeUndefined();
    expect((await store.deviceAuthorizations.find(a.hash))!.status).toBe('approved');

    const late = newDeviceAuthorization(client.id, { expiresAt: T0 + 10 });
    await store.deviceAuthorizations.create(late);
    expect(await store.deviceAuthorizations.decide(late.hash, approval(), T0 + 10)).toBeUndefined();
    expect(await store.deviceAuthorizations.decide(hash(), approval(), T0)).toBeUndefined();
    const denied = newDeviceAuthorization(client.id);
    await store.deviceAuthorizations.create(denied);
    expect(await store.deviceAuthorizations.decide(denied.hash, { status: 'denied', userId: user.id }, T0)).toMatchObject({ status: 'denied', userId: user.id, scope: denied.scope });
  });

  it('twenty racing decisions: exactly one wins', async () => {
    const a = newDeviceAuthorization(client.id);
    await store.deviceAuthorizations.create(a);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.deviceAuthorizations.decide(a.hash, i % 2 ? approval() : { status: 'denied', userId: user.id }, T0)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('poll: step sees the row; wait keeps the interval and the poll time, redeem marks it and stores the tokens, none changes nothing', async () => {
    const a = newDeviceAuthorization(client.id);
    await store.deviceAuthorizations.create(a);
    const seen: DeviceAuthorization[] = [];
    const run = (now: number, outcome: PollOutcome) => store.deviceAuthorizations.poll(a.hash, now, (x) => (seen.push(x), outcome));
    expect(await run(T0 + 1, { kind: 'wait', interval: 10 })).toEqual(a);
    expect(await run(T0 + 2, { kind: 'none' })).toEqual({ ...a, interval: 10, lastPolledAt: T0 + 1 });
    expectNumericTimes(seen[1]!, ['lastPolledAt', 'interval']);
    await store.deviceAuthorizations.decide(a.hash, approval(), T0 + 3);
    const token = newToken(client.id, user.id, { familyId: a.familyId });
    await run(T0 + 4, { kind: 'redeem', tokens: [token] });
    expect(await store.tokens.find(token.hash)).toMatchObject({ hash: token.hash, familyId: a.familyId });
    expect(await store.deviceAuthorizations.find(a.hash)).toMatchObject({ status: 'redeemed', lastPolledAt: T0 + 4 });
    let called = false;
    expect(await store.deviceAuthorizations.poll(hash(), T0, () => ((called = true), { kind: 'none' }))).toBeUndefined();
    expect(called).toBe(false);
  });

  it('twenty racing polls of an approved authorization: one sees it approved and redeems, the others see it redeemed', async () => {
    const a = newDeviceAuthorization(client.id);
    await store.deviceAuthorizations.create(a);
    await store.deviceAuthorizations.decide(a.hash, approval(), T0);
    const statuses: string[] = [];
    await Promise.all(
      Array.from({ length: 20 }, () =>
        store.deviceAuthorizations.poll(a.hash, T0 + 1, (x) => {
          statuses.push(x.status);
          return x.status === 'approved' ? { kind: 'redeem', tokens: [newToken(client.id, user.id, { familyId: a.familyId })] } : { kind: 'none' };
        }),
      ),
    );
    expect(statuses.filter((s) => s === 'approved')).toHaveLength(1);
    expect(statuses.filter((s) => s === 'redeemed')).toHaveLength(19);
  });

  it.runIf(kind === 'postgres')('racing polls through two store instances: still one redemption', async () => {
    const second = openStore(databaseConfig(url));
    try {
      const a = newDeviceAuthorization(client.id);
      await store.deviceAuthorizations.create(a);
      await second.deviceAuthorizations.decide(a.hash, approval(), T0);
      let approved = 0;
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? second : store).deviceAuthorizations.poll(a.hash, T0 + 1, (x) => {
            if (x.status !== 'approved') return { kind: 'none' };
            approved++;
            return { kind: 'redeem', tokens: [] };
          }),
        ),
      );
      expect(approved).toBe(1);
    } finally {
      await second.close();
    }
  });

  it('ending the grant deletes what the person approved and the device has not redeemed; deleting the client deletes the rest', async () => {
    const approved = newDeviceAuthorization(client.id);
    const pending = newDeviceAuthorization(client.id);
    await store.deviceAuthorizations.create(approved);
    await store.deviceAuthorizations.create(pending);
    await store.deviceAuthorizations.decide(approved.hash, approval(), T0);
    await store.grants.upsert({ userId: user.id, clientId: client.id, scope: 'courses:read', createdAt: T0, updatedAt: T0, expiresAt: null });
    await store.grants.delete(user.id, client.id);
    expect(await store.deviceAuthorizations.find(approved.hash)).toBeUndefined();
    // Nobody has decided on a pending one yet: it is no one's grant.
    expect(await store.deviceAuthorizations.find(pending.hash)).toBeDefined();
    await store.clients.delete(client.id);
    expect(await store.deviceAuthorizations.find(pending.hash)).toBeUndefined();
    await store.clients.create(client);
  });

  it('purgeExpired deletes what expired before the given time, and nothing else', async () => {
    const old = newDeviceAuthorization(client.id, { expiresAt: T0 - 1 });
    const live = newDeviceAuthorization(client.id, { expiresAt: T0 + 1 });
    await store.deviceAuthorizations.create(old);
    await store.deviceAuthorizations.create(live);
    expect(await store.deviceAuthorizations.purgeExpired(T0)).toBeGreaterThanOrEqual(1);
    expect(await store.deviceAuthorizations.find(old.hash)).toBeUndefined();
    expect(await store.deviceAuthorizations.find(live.hash)).toBeDefined();
  });
});
