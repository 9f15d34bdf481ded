/**
 * The store contract of sessions (src/store/repositories/), run against every
 * store kind: SQLite always, PostgreSQL when TEST_DATABASE_URL is set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session, Store, User } from '../../../src/store/types.ts';
import { STORE_KINDS } from '../../helpers/stores.ts';
import { PAST, T0, expectNumericTimes, hash, newUser, openContractStore } from '../../helpers/store-contract.ts';

describe.each(STORE_KINDS)('store contract: sessions (%s)', (kind) => {
  let store: Store, user: User;
  beforeAll(async () => ({ store, user } = await openContractStore(kind)));
  afterAll(() => store?.close());

  describe('sessions', () => {
    it('findLive returns the session only while now < expiresAt', async () => {
      const s: Session = { hash: hash(), userId: user.id, authTime: T0, expiresAt: T0 + 1000 };
      await store.sessions.create(s);
      const live = await store.sessions.findLive(s.hash, T0);
      expect(live).toEqual(s);
      expectNumericTimes(live!, ['authTime', 'expiresAt']);
      expect(await store.sessions.findLive(s.hash, T0 + 999)).toEqual(s);
      expect(await store.sessions.findLive(s.hash, T0 + 1000)).toBeUndefined();
      expect(await store.sessions.findLive(s.hash, T0 + 5000)).toBeUndefined();
    });

    it('findLive of an unknown hash gives undefined; delete removes a session; delete of unknown is harmless', async () => {
      expect(await store.sessions.findLive(hash(), T0)).toBeUndefined();
      const s: Session = { hash: hash(), userId: user.id, authTime: T0, expiresAt: T0 + 1000 };
      await store.sessions.create(s);
      await store.sessions.delete(s.hash);
      expect(await store.sessions.findLive(s.hash, T0)).toBeUndefined();
      await expect(store.sessions.delete(hash())).resolves.toBeUndefined();
    });

    it('purgeExpired deletes sessions that expired before the given time', async () => {
      const gone: Session = { hash: hash(), userId: user.id, authTime: PAST - 100, expiresAt: PAST - 1 };
      const boundary: Session = { hash: hash(), userId: user.id, authTime: PAST - 100, expiresAt: PAST };
      const live: Session = { hash: hash(), userId: user.id, authTime: PAST - 100, expiresAt: PAST + 100 };
      for (const s of [gone, boundary, live]) await store.sessions.create(s);
      expect(await store.sessions.purgeExpired(PAST)).toBe(1);
      expect(await store.sessions.findLive(boundary.hash, PAST - 1)).toEqual(boundary);
      expect(await store.sessions.findLive(live.hash, PAST - 1)).toEqual(live);
      expect(await store.sessions.findLive(gone.hash, PAST - 50)).toBeUndefined();
    });
  });

  describe('sessions: deleteForUser', () => {
    it('deletes every session of the user but the one excepted, returns how many, and spares other users', async () => {
      const u = newUser();
      const other = newUser();
      await store.users.create(u);
      await store.users.create(other);
      const mine = [0, 1, 2].map((): Session => ({ hash: hash(), userId: u.id, authTime: T0, expiresAt: T0 + 1000 }));
      const theirs: Session = { hash: hash(), userId: other.id, authTime: T0, expiresAt: T0 + 1000 };
      for (const s of [...mine, theirs]) await store.sessions.create(s);
      expect(await store.sessions.deleteForUser(u.id, mine[0]!.hash)).toBe(2);
      expect(await store.sessions.findLive(mine[0]!.hash, T0)).toEqual(mine[0]);
      for (const s of mine.slice(1)) expect(await store.sessions.findLive(s.hash, T0)).toBeUndefined();
      expect(await store.sessions.findLive(theirs.hash, T0)).toEqual(theirs);
      expect(await store.sessions.deleteForUser(u.id)).toBe(1);
      expect(await store.sessions.findLive(mine[0]!.hash, T0)).toBeUndefined();
      expect(await store.sessions.deleteForUser(u.id)).toBe(0);
      expect(await store.sessions.findLive(theirs.hash, T0)).toEqual(theirs);
    });
  });
});
