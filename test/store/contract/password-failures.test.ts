/**
 * The store contract of password failures (src/store/repositories/), run against every
 * store kind: SQLite always, PostgreSQL when TEST_DATABASE_URL is set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../../src/store/types.ts';
import { STORE_KINDS } from '../../helpers/stores.ts';
import { PAST, T0, expectNumericTimes, hash, openContractStore } from '../../helpers/store-contract.ts';

describe.each(STORE_KINDS)('store contract: password failures (%s)', (kind) => {
  let store: Store;
  beforeAll(async () => ({ store } = await openContractStore(kind)));
  afterAll(() => store?.close());

  describe('password failures', () => {
    /** 0 for the first two failures, then 1 s doubling: the shape the sign-in throttle uses. */
    const delayFor = (failures: number) => (failures < 3 ? 0 : 1000 * 2 ** (failures - 3));
    const KEEP = 10_000;
    const claim = (key: string, now: number) => store.passwordFailures.claim(key, now, delayFor, KEEP);

    it('claim counts each allowed check, refuses while the key waits without counting, and forgets KEEP after the wait', async () => {
      const key = hash();
      expect(await claim(key, T0)).toEqual({ allowed: true, failures: 1, blockedUntil: T0 });
      expect(await claim(key, T0 + 1)).toEqual({ allowed: true, failures: 2, blockedUntil: T0 + 1 });
      const third = await claim(key, T0 + 2);
      expect(third).toEqual({ allowed: true, failures: 3, blockedUntil: T0 + 1002 });
      expectNumericTimes(third, ['blockedUntil']);
      // Waiting: refused, and the refusal is not counted.
      expect(await claim(key, T0 + 500)).toEqual({ allowed: false, failures: 3, blockedUntil: T0 + 1002 });
      expect(await claim(key, T0 + 1001)).toEqual({ allowed: false, failures: 3, blockedUntil: T0 + 1002 });
      expect(await claim(key, T0 + 1002)).toEqual({ allowed: true, failures: 4, blockedUntil: T0 + 3002 });
      // Kept until KEEP after the wait ends, then forgotten: the next check counts from 1 again.
      expect(await claim(key, T0 + 3002 + KEEP - 1)).toEqual({ allowed: true, failures: 5, blockedUntil: T0 + 3002 + KEEP - 1 + 4000 });
      expect(await claim(key, T0 + 7001 + 2 * KEEP)).toEqual({ allowed: true, failures: 1, blockedUntil: T0 + 7001 + 2 * KEEP });
    });

    const LIMITS = { free: 3, pendingMs: 30_000 };
    const begin = (key: string, now: number) => store.passwordFailures.begin(key, now, LIMITS);
    const finish = (key: string, right: boolean, now: number) => store.passwordFailures.finish(key, right, now, delayFor, KEEP);

    it('begin/finish count a failure when the answer is known, and a right one forgets the count and the wait', async () => {
      const key = hash();
      expect(await begin(key, T0)).toEqual({ state: 'allowed' });
      expect(await finish(key, false, T0)).toEqual({ failures: 1, blockedUntil: 0 });
      expect(await begin(key, T0 + 1)).toEqual({ state: 'allowed' });
      expect(await finish(key, false, T0 + 1)).toEqual({ failures: 2, blockedUntil: 0 });
      expect(await begin(key, T0 + 2)).toEqual({ state: 'allowed' });
      expect(await finish(key, false, T0 + 2)).toEqual({ failures: 3, blockedUntil: T0 + 1002 });
      expect(await begin(key, T0 + 500)).toEqual({ state: 'refused', failures: 3, blockedUntil: T0 + 1002 });
      expect(await begin(key, T0 + 1002)).toEqual({ state: 'allowed' });
      expect(await finish(key, true, T0 + 1002)).toEqual({ failures: 0, blockedUntil: 0 });
      expect(await begin(key, T0 + 1003)).toEqual({ state: 'allowed' });
      expect(await finish(key, false, T0 + 1003)).toEqual({ failures: 1, blockedUntil: 0 });
      // A right answer on another key changes nothing here.
      const other = hash();
      await begin(other, T0);
      await finish(other, true, T0);
      expect(await begin(key, T0 + 1004)).toEqual({ state: 'allowed' });
      expect(await finish(key, false, T0 + 1004)).toEqual({ failures: 2, blockedUntil: 0 });
    });

    it('holds back a check that could take the failures in flight to the free ones, until their answers come', async () => {
      const key = hash();
      const started = await Promise.all(Array.from({ length: 6 }, () => begin(key, T0)));
      // Three may be in flight at once with no failures counted: three wrong ones reach the wait.
      expect(started.filter((s) => s.state === 'allowed')).toHaveLength(3);
      expect(started.filter((s) => s.state === 'busy')).toHaveLength(3);
      await finish(key, true, T0);
      expect(await begin(key, T0)).toEqual({ state: 'allowed' });
      expect(await begin(key, T0)).toEqual({ state: 'busy' });
      // Wrong answers: the last one in flight reaches the wait, and later checks are refused.
      for (let i = 0; i < 3; i++) await finish(key, false, T0 + 1);
      expect(await begin(key, T0 + 2)).toEqual({ state: 'refused', failures: 3, blockedUntil: T0 + 1001 });
    });

    it('forgets checks in flight pendingMs after they began (an instance that stopped mid-check)', async () => {
      const key = hash();
      for (let i = 0; i < 3; i++) expect(await begin(key, T0)).toEqual({ state: 'allowed' });
      expect(await begin(key, T0 + LIMITS.pendingMs - 1)).toEqual({ state: 'busy' });
      expect(await begin(key, T0 + LIMITS.pendingMs + 1)).toEqual({ state: 'allowed' });
    });

    it('forgive gives back one claim of one key, never below zero, and lifts the wait that claim started', async () => {
      const forgive = (key: string, claimed: { blockedUntil: number }) => store.passwordFailures.forgive(key, claimed.blockedUntil);
      const [a, b] = [hash(), hash()];
      await claim(a, T0);
      const second = await claim(a, T0);
      await claim(b, T0);
      await forgive(a, second);
      // One of the two was given back: the next claim is the second again, not the third.
      expect(await claim(a, T0)).toEqual({ allowed: true, failures: 2, blockedUntil: T0 });
      expect(await claim(b, T0)).toEqual({ allowed: true, failures: 2, blockedUntil: T0 });
      const c = hash();
      const only = await claim(c, T0);
      await forgive(c, only);
      await forgive(c, only);
      expect(await claim(c, T0)).toEqual({ allowed: true, failures: 1, blockedUntil: T0 });
      // The third claim starts a wait; forgiving it lowers the count and lifts its wait.
      await claim(c, T0);
      const third = await claim(c, T0);
      expect(third).toEqual({ allowed: true, failures: 3, blockedUntil: T0 + 1000 });
      await forgive(c, third);
      expect(await claim(c, T0 + 10)).toEqual({ allowed: true, failures: 3, blockedUntil: T0 + 1010 });
      // A wait another claim set is not lifted by forgiving an older one.
      await forgive(c, third);
      expect(await claim(c, T0 + 20)).toEqual({ allowed: false, failures: 2, blockedUntil: T0 + 1010 });
      await expect(store.passwordFailures.forgive(hash(), T0)).resolves.toBeUndefined();
    });

    it('of many racing claims of one key, exactly as many as reach the wait are allowed', async () => {
      const key = hash();
      const claims = await Promise.all(Array.from({ length: 8 }, () => claim(key, T0)));
      expect(
        claims
          .filter((c) => c.allowed)
          .map((c) => c.failures)
          .sort(),
      ).toEqual([1, 2, 3]);
      expect(claims.filter((c) => !c.allowed)).toEqual(Array.from({ length: 5 }, () => ({ allowed: false, failures: 3, blockedUntil: T0 + 1000 })));
    });

    it('a check that starts no wait refuses no racing claim, even one whose clock read came earlier', async () => {
      const key = hash();
      expect(await claim(key, T0 + 5)).toEqual({ allowed: true, failures: 1, blockedUntil: T0 + 5 });
      expect(await claim(key, T0)).toEqual({ allowed: true, failures: 2, blockedUntil: T0 });
    });

    it('purgeExpired deletes counts that expired before the given time', async () => {
      const [gone, boundary, kept] = [hash(), hash(), hash()];
      await claim(gone, PAST - KEEP - 1);
      await claim(boundary, PAST - KEEP);
      await claim(kept, PAST);
      expect(await store.passwordFailures.purgeExpired(PAST)).toBe(1);
      // The kept counts go on; the purged one starts again.
      expect(await claim(boundary, PAST - KEEP)).toEqual({ allowed: true, failures: 2, blockedUntil: PAST - KEEP });
      expect(await claim(kept, PAST)).toEqual({ allowed: true, failures: 2, blockedUntil: PAST });
      expect(await claim(gone, PAST - KEEP - 1)).toEqual({ allowed: true, failures: 1, blockedUntil: PAST - KEEP - 1 });
    });
  });
});
