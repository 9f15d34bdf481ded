/**
 * The store contract of settings and files (src/store/repositories/), run against every
 * store kind: SQLite always, PostgreSQL when TEST_DATABASE_URL is set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/store/kysely/open.ts';
import type { Store, User } from '../../../src/store/types.ts';
import { databaseConfig, freshDatabaseUrl, STORE_KINDS } from '../../helpers/stores.ts';
import { T0, expectNumericTimes, hash, id, openContractStore } from '../../helpers/store-contract.ts';

describe.each(STORE_KINDS)('store contract: settings and files (%s)', (kind) => {
  let store: Store, user: User;
  beforeAll(async () => ({ store, user } = await openContractStore(kind)));
  afterAll(() => store?.close());

  describe('settings and files', () => {
    it('settings: get of an unknown name is undefined; put creates, then replaces', async () => {
      const name = id('setting-');
      expect(await store.settings.get(name)).toBeUndefined();
      await store.settings.put(name, { school: 'Lyceum', colours: ['#fff'], nested: { a: 1 } }, T0);
      expect(await store.settings.get(name)).toEqual({ school: 'Lyceum', colours: ['#fff'], nested: { a: 1 } });
      await store.settings.put(name, { school: 'Renamed' }, T0 + 1);
      expect(await store.settings.get(name)).toEqual({ school: 'Renamed' });
    });

    it('files: insert → find with numeric size and createdAt; list newest first up to the limit; delete', async () => {
      const files = [0, 1, 2].map((i) => ({
        id: id('fil_'),
        name: `f${i}.pdf`,
        contentType: 'application/pdf',
        size: 10 * 1024 * 1024 - i,
        sha256: hash(),
        uploadedBy: i === 0 ? null : user.id,
        createdAt: T0 + 30_000_000 + i,
      }));
      for (const f of files) await store.files.insert(f);
      const found = await store.files.find(files[1]!.id);
      expect(found).toEqual(files[1]);
      expectNumericTimes(found!, ['createdAt', 'size']);
      expect(typeof found!.size).toBe('number');
      expect(await store.files.find(id('fil_'))).toBeUndefined();
      const listed = await store.files.list(2);
      expect(listed.map((f) => f.id)).toEqual([files[2]!.id, files[1]!.id]);
      expect(await store.files.delete(files[0]!.id)).toBe(true);
      expect(await store.files.delete(files[0]!.id)).toBe(false);
      expect(await store.files.find(files[0]!.id)).toBeUndefined();
    });

    it('files: insertWithinQuota stores up to the quota exactly, refuses past it with the bytes used; usedBytes counts stored files and a delete frees them', async () => {
      const other = await freshDatabaseUrl(kind);
      const s = openStore(databaseConfig(other));
      try {
        await s.migrate();
        const file = (size: number) => ({ id: id('fil_'), name: 'q.txt', contentType: 'text/plain', size, sha256: hash(), uploadedBy: null, createdAt: T0 });
        expect(await s.files.usedBytes()).toBe(0);
        const a = file(600);
        expect(await s.files.insertWithinQuota(a, 1000)).toEqual({ stored: true });
        expect(await s.files.find(a.id)).toEqual(a);
        const b = file(401);
        expect(await s.files.insertWithinQuota(b, 1000)).toEqual({ stored: false, usedBytes: 600 });
        expect(await s.files.find(b.id)).toBeUndefined();
        expect(await s.files.insertWithinQuota(file(400), 1000)).toEqual({ stored: true });
        expect(await s.files.usedBytes()).toBe(1000);
        expect(await s.files.delete(a.id)).toBe(true);
        expect(await s.files.usedBytes()).toBe(400);
        expect(await s.files.insertWithinQuota(b, 1000)).toEqual({ stored: true });
      } finally {
        await s.close();
      }
    });

    it('files: of many racing insertWithinQuota calls from two stores on one database, only as many as fit are stored', async () => {
      const other = await freshDatabaseUrl(kind);
      const stores = [openStore(databaseConfig(other)), openStore(databaseConfig(other))];
      try {
        await stores[0]!.migrate();
        const results = await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            stores[i % 2]!.files.insertWithinQuota({ id: id('fil_'), name: 'r.txt', contentType: 'text/plain', size: 300, sha256: hash(), uploadedBy: null, createdAt: T0 }, 1000),
          ),
        );
        expect(results.filter((r) => r.stored)).toHaveLength(3);
        expect(await stores[1]!.files.usedBytes()).toBe(900);
      } finally {
        for (const st of stores) await st.close();
      }
    });
  });
});
