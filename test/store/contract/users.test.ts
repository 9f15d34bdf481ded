/**
 * The store contract of users (src/store/repositories/), run against every
 * store kind: SQLite always, PostgreSQL when TEST_DATABASE_URL is set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/store/kysely/open.ts';
import { DuplicateError, type Store } from '../../../src/store/types.ts';
import { databaseConfig, freshDatabaseUrl, STORE_KINDS } from '../../helpers/stores.ts';
import { T0, expectNumericTimes, id, newUser, openContractStore } from '../../helpers/store-contract.ts';

describe.each(STORE_KINDS)('store contract: users (%s)', (kind) => {
  let store: Store;
  beforeAll(async () => ({ store } = await openContractStore(kind)));
  afterAll(() => store?.close());

  describe('users', () => {
    it('create → findById and findByEmail return the user with numeric times', async () => {
      const u = newUser({ role: 'lecturer', name: 'Ada Lovelace', createdAt: T0 + 1, updatedAt: T0 + 2 });
      await store.users.create(u);
      const byId = await store.users.findById(u.id);
      expect(byId).toEqual(u);
      expectNumericTimes(byId!, ['createdAt', 'updatedAt']);
      expect(await store.users.findByEmail(u.email)).toEqual(u);
    });

    it('findByEmail is case-insensitive, whatever case the email was created with', async () => {
      const local = id('Mixed.Case-');
      const u = newUser({ email: `${local}@Example.TEST` });
      await store.users.create(u);
      for (const probe of [`${local}@Example.TEST`, `${local}@example.test`.toLowerCase(), `${local}@EXAMPLE.TEST`.toUpperCase()]) {
        const found = await store.users.findByEmail(probe);
        expect(found?.id, probe).toBe(u.id);
      }
    });

    it('findByEmail / findById of unknown values give undefined', async () => {
      expect(await store.users.findByEmail('nobody-here@school.test')).toBeUndefined();
      expect(await store.users.findById(id())).toBeUndefined();
    });

    it('create throws DuplicateError for an email already taken, in any case', async () => {
      const u = newUser({ email: `${id('dup-')}@school.test` });
      await store.users.create(u);
      await expect(store.users.create(newUser({ email: u.email }))).rejects.toBeInstanceOf(DuplicateError);
      await expect(store.users.create(newUser({ email: u.email.toUpperCase() }))).rejects.toBeInstanceOf(DuplicateError);
      const mixed = u.email.replace(/^./, (c) => c.toUpperCase()).replace('@school', '@SCHOOL');
      await expect(store.users.create(newUser({ email: mixed }))).rejects.toBeInstanceOf(DuplicateError);
      // the first user is untouched
      expect(await store.users.findById(u.id)).toEqual(u);
    });

    it('DuplicateError also when the email is created with upper case first and lower case second', async () => {
      const local = id('UPPER-');
      await store.users.create(newUser({ email: `${local}@SCHOOL.TEST` }));
      await expect(store.users.create(newUser({ email: `${local}@school.test`.toLowerCase() }))).rejects.toBeInstanceOf(DuplicateError);
    });

    it('of 10 concurrent creates with one email exactly one succeeds; the others get DuplicateError', async () => {
      const email = `${id('race-')}@school.test`;
      const results = await Promise.allSettled(Array.from({ length: 10 }, () => store.users.create(newUser({ email }))));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(DuplicateError);
    });

    it('list() returns users oldest first (created_at, then id)', async () => {
      const base = T0 + 10_000_000;
      const third = newUser({ createdAt: base + 2 });
      const first = newUser({ createdAt: base });
      const second = newUser({ createdAt: base + 1 });
      for (const u of [third, first, second]) await store.users.create(u);
      const all = await store.users.list();
      const mine = all.filter((u) => [first.id, second.id, third.id].includes(u.id)).map((u) => u.id);
      expect(mine).toEqual([first.id, second.id, third.id]);
      const created = all.map((u) => u.createdAt);
      expect(created).toEqual([...created].sort((a, b) => a - b));
      for (const u of all) expectNumericTimes(u, ['createdAt', 'updatedAt']);
    });

    it('any() is false on a new database and true once a user exists', async () => {
      const fresh = openStore(databaseConfig(await freshDatabaseUrl(kind)));
      try {
        await fresh.migrate();
        expect(await fresh.users.any()).toBe(false);
        await fresh.users.create(newUser());
        expect(await fresh.users.any()).toBe(true);
      } finally {
        await fresh.close();
      }
      expect(await store.users.any()).toBe(true);
    });

    it('setPassword replaces the hash and updatedAt and returns true; false for an unknown id', async () => {
      const u = newUser();
      await store.users.create(u);
      expect(await store.users.setPassword(u.id, 'new-hash', T0 + 99)).toBe(true);
      const after = await store.users.findById(u.id);
      expect(after).toMatchObject({ passwordHash: 'new-hash', updatedAt: T0 + 99, createdAt: u.createdAt, email: u.email });
      expectNumericTimes(after!, ['createdAt', 'updatedAt']);
      expect(await store.users.setPassword(id('missing-'), 'x', T0)).toBe(false);
    });
  });

  describe('users: setName', () => {
    it('setName replaces the name and updatedAt and returns true; false for an unknown id', async () => {
      const u = newUser();
      await store.users.create(u);
      expect(await store.users.setName(u.id, 'Grace Hopper', T0 + 77)).toBe(true);
      expect(await store.users.findById(u.id)).toEqual({ ...u, name: 'Grace Hopper', updatedAt: T0 + 77 });
      expect(await store.users.setName(id('missing-'), 'x', T0)).toBe(false);
    });
  });
});
