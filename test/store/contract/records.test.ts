/**
 * The store contract of records (platform tables) (src/store/repositories/), run against every
 * store kind: SQLite always, PostgreSQL when TEST_DATABASE_URL is set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/store/kysely/open.ts';
import { DuplicateError, type Store } from '../../../src/store/types.ts';
import { databaseConfig, freshDatabaseUrl, STORE_KINDS } from '../../helpers/stores.ts';
import { T0, id, openContractStore } from '../../helpers/store-contract.ts';

describe.each(STORE_KINDS)('store contract: records (platform tables) (%s)', (kind) => {
  let store: Store;
  beforeAll(async () => ({ store } = await openContractStore(kind)));
  afterAll(() => store?.close());

  describe('records (platform tables)', () => {
    const coupon = (over: Record<string, unknown> = {}) => ({
      id: id('cpn_'),
      created_at: T0,
      updated_at: T0,
      code: id('CODE-'),
      percent_off: 10,
      amount_off_cents: null,
      valid_until: T0 + 86_400_000,
      max_redemptions: 0,
      times_redeemed: 0,
      active: 1,
      ...over,
    });

    it('insert → get round-trips a row; bigint columns come back as numbers', async () => {
      const row = coupon();
      await store.records.insert('coupons', row);
      const got = await store.records.get('coupons', row.id);
      expect(got).toEqual(row);
      for (const col of ['created_at', 'updated_at', 'valid_until', 'percent_off', 'active']) {
        expect(typeof got![col], col).toBe('number');
      }
      expect(await store.records.get('coupons', id('cpn_'))).toBeUndefined();
    });

    it('insert throws DuplicateError when a unique column is taken', async () => {
      const row = coupon();
      await store.records.insert('coupons', row);
      await expect(store.records.insert('coupons', coupon({ code: row.code }))).rejects.toBeInstanceOf(DuplicateError);
      await expect(store.records.insert('coupons', coupon({ id: row.id }))).rejects.toBeInstanceOf(DuplicateError);
    });

    it('insertMany writes every row in one transaction: all of them, or none when a unique value is taken', async () => {
      // More rows than one statement takes (30,000 bound values), so it is written in several.
      const rows = Array.from({ length: 3000 }, () => coupon());
      await store.records.insertMany('coupons', rows);
      for (const row of [rows[0]!, rows[2727]!, rows[2999]!]) expect(await store.records.get('coupons', row.id)).toEqual(row);
      const clash = [coupon(), coupon({ code: rows[5]!.code })];
      await expect(store.records.insertMany('coupons', clash)).rejects.toBeInstanceOf(DuplicateError);
      expect(await store.records.get('coupons', clash[0]!.id)).toBeUndefined();
      await store.records.insertMany('coupons', []);
    });

    it('update returns the updated row, undefined for an unknown id, and DuplicateError on a taken unique value', async () => {
      const a = coupon();
      const b = coupon();
      await store.records.insert('coupons', a);
      await store.records.insert('coupons', b);
      const updated = await store.records.update('coupons', a.id, { percent_off: 50, updated_at: T0 + 5 });
      expect(updated).toEqual({ ...a, percent_off: 50, updated_at: T0 + 5 });
      expect(typeof updated!.updated_at).toBe('number');
      expect(await store.records.update('coupons', id('cpn_'), { percent_off: 1 })).toBeUndefined();
      await expect(store.records.update('coupons', b.id, { code: a.code })).rejects.toBeInstanceOf(DuplicateError);
      expect(await store.records.get('coupons', b.id)).toEqual(b);
    });

    it('delete: true once, then false', async () => {
      const row = coupon();
      await store.records.insert('coupons', row);
      expect(await store.records.delete('coupons', row.id)).toBe(true);
      expect(await store.records.delete('coupons', row.id)).toBe(false);
      expect(await store.records.get('coupons', row.id)).toBeUndefined();
    });

    it('list filters, sorts ascending with ties by id, and pages by key without gaps or repeats, even with inserts between pages', async () => {
      const batch = id('batch-');
      const rows = Array.from({ length: 7 }, (_, i) => ({
        id: `stu_${batch}_${i}`,
        created_at: T0 + (i % 3),
        updated_at: T0,
        name: `Student ${i}`,
        email: `${batch}-${i}@school.test`,
        status: i === 6 ? 'suspended' : 'active',
        user_id: null,
        notes: batch,
      }));
      for (const r of [...rows].reverse()) await store.records.insert('students', r);
      const where: [string, '=', unknown][] = [
        ['notes', '=', batch],
        ['status', '=', 'active'],
      ];
      const expected = rows
        .filter((r) => r.status === 'active')
        .sort((x, y) => x.created_at - y.created_at || (x.id < y.id ? -1 : 1))
        .map((r) => r.id);

      const seen: string[] = [];
      let after: [unknown, string] | undefined;
      for (let page = 0; page < 10; page++) {
        const res = await store.records.list('students', { where, sort: 'created_at', limit: 2, ...(after ? { after } : {}) });
        expect(res.rows.length).toBeLessThanOrEqual(2);
        seen.push(...res.rows.map((r) => String(r.id)));
        if (page === 0) {
          // A row sorting before the cursor, inserted mid-way, must not shift the pages.
          await store.records.insert('students', { ...rows[0]!, id: `stu_${batch}_early`, created_at: T0 - 1, email: `${batch}-early@school.test` });
        }
        if (!res.next) break;
        expect(typeof res.next[0]).toBe('number');
        after = res.next;
      }
      expect(seen).toEqual(expected);
      expect(await store.records.count('students', where)).toBe(expected.length + 1);
    });

    it('list search is a case-insensitive substring match, with % and _ taken literally', async () => {
      const batch = id('search-');
      const mk = (name: string, i: number) => ({ id: `stu_${batch}_${i}`, created_at: T0, updated_at: T0, name, email: `${batch}-${i}@school.test`, status: 'active', user_id: null, notes: batch });
      const names = ['Ada LOVELACE', 'ada lovelace', 'Grace Hopper', '100% Ada', 'ada_x', 'adaXx'];
      for (const [i, n] of names.entries()) await store.records.insert('students', mk(n, i));
      const search = async (text: string) =>
        (await store.records.list('students', { where: [['notes', '=', batch]], search: { columns: ['name'], text }, sort: 'id', limit: 50 })).rows.map((r) => r.name).sort();
      expect(await search('LoveLace')).toEqual(['Ada LOVELACE', 'ada lovelace']);
      expect(await search('0% a')).toEqual(['100% Ada']);
      expect(await search('a_x')).toEqual(['ada_x']);
      expect(await search('')).toHaveLength(names.length);
    });

    it('list gives each call its own values when a query shape repeats: filters, in-lists of other lengths, a search over two columns', async () => {
      const batch = id('shape-');
      const mk = (i: number, status: string, name: string) => ({
        id: `stu_${batch}_${i}`,
        created_at: T0 + i,
        updated_at: T0,
        name,
        email: `${batch}-${i}-${name.replace(/ /g, '')}@school.test`,
        status,
        user_id: null,
        notes: batch,
      });
      const rows = [mk(0, 'active', 'Ada'), mk(1, 'suspended', 'Grace'), mk(2, 'active', 'Alan'), mk(3, 'invited', 'Edsger')];
      for (const r of rows) await store.records.insert('students', r);
      const ids = async (q: Omit<Parameters<Store['records']['list']>[1], 'sort' | 'limit'>, limit = 10) =>
        (await store.records.list('students', { sort: 'created_at', limit, ...q })).rows.map((r) => String(r.id).slice(-1));
      const byStatus = (status: string) =>
        ids({
          where: [
            ['notes', '=', batch],
            ['status', '=', status],
          ],
        });
      expect(await byStatus('active')).toEqual(['0', '2']);
      expect(await byStatus('suspended')).toEqual(['1']);
      expect(await byStatus('gone')).toEqual([]);
      const inStatus = (statuses: string[]) =>
        ids({
          where: [
            ['notes', '=', batch],
            ['status', 'in', statuses],
          ],
        });
      expect(await inStatus(['invited'])).toEqual(['3']);
      expect(await inStatus(['suspended', 'invited'])).toEqual(['1', '3']);
      expect(await inStatus(['active'])).toEqual(['0', '2']);
      const search = (text: string) => ids({ where: [['notes', '=', batch]], search: { columns: ['name', 'email'], text } });
      expect(await search('gRACE')).toEqual(['1']);
      expect(await search('-2-')).toEqual(['2']);
      expect(await search('a')).toEqual(['0', '1', '2', '3']);
      expect(await ids({ where: [['notes', '=', batch]] }, 1)).toEqual(['0']);
      expect(await ids({ where: [['notes', '=', batch]] }, 3)).toEqual(['0', '1', '2']);
    });

    it("count, select and 'in' conditions", async () => {
      const batch = id('sel-');
      const rows = [0, 1, 2].map((i) => coupon({ code: `${batch}-${i}`, percent_off: i * 10, active: i % 2 }));
      for (const r of rows) await store.records.insert('coupons', r);
      const codes = rows.map((r) => r.code);
      expect(await store.records.count('coupons', [['code', 'in', codes]])).toBe(3);
      expect(
        await store.records.count('coupons', [
          ['code', 'in', codes],
          ['active', '=', 1],
        ]),
      ).toBe(1);
      expect(
        await store.records.count('coupons', [
          ['code', 'in', codes],
          ['percent_off', '>=', 10],
        ]),
      ).toBe(2);
      const selected = await store.records.select(
        'coupons',
        ['code', 'percent_off'],
        [
          ['code', 'in', codes],
          ['percent_off', '<', 20],
        ],
      );
      expect(selected.map((r) => ({ ...r })).sort((a, b) => String(a.code).localeCompare(String(b.code)))).toEqual([
        { code: `${batch}-0`, percent_off: 0 },
        { code: `${batch}-1`, percent_off: 10 },
      ]);
    });

    it('clear deletes every row of the named tables', async () => {
      const other = await freshDatabaseUrl(kind);
      const s = openStore(databaseConfig(other));
      try {
        await s.migrate();
        await s.records.insert('coupons', coupon());
        await s.records.insert('pages', { id: id('pag_'), created_at: T0, updated_at: T0, title: 'T', slug: id('s-'), body: '', status: 'draft' });
        await s.records.insert('posts', {
          id: id('pst_'),
          created_at: T0,
          updated_at: T0,
          title: 'T',
          slug: id('s-'),
          excerpt: null,
          body: '',
          author_name: null,
          published_at: null,
          status: 'draft',
        });
        await s.records.clear(['coupons', 'pages']);
        expect(await s.records.count('coupons', [])).toBe(0);
        expect(await s.records.count('pages', [])).toBe(0);
        expect(await s.records.count('posts', [])).toBe(1);
      } finally {
        await s.close();
      }
    });
  });
});
