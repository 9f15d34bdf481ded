/**
 * Search through the search indexes (src/store/kysely/search-indexes.ts) on
 * each store: the same answers as reading every row, kept current through
 * inserts, updates and deletes, for text of any length and any characters,
 * and still right after SQLite's VACUUM renumbers the rows.
 */
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listIndexes } from '../../src/platform/list-indexes.ts';
import { openStore } from '../../src/store/kysely/open.ts';
import type { Store } from '../../src/store/types.ts';
import { databaseConfig, freshDatabaseUrl, STORE_KINDS } from '../helpers/stores.ts';

describe.each(STORE_KINDS)('search index on %s', (kind) => {
  let store: Store;
  let url: string;
  const T0 = 1_750_000_000_000;
  const student = (id: string, name: string, email: string, at = T0) => ({ id, name, email, status: 'active', created_at: at, updated_at: at });
  const search = async (text: string) => (await store.records.list('students', { where: [], search: { columns: ['name', 'email'], text }, sort: 'created_at', limit: 50 })).rows.map((r) => r.id);

  beforeAll(async () => {
    url = await freshDatabaseUrl(kind);
    store = openStore(databaseConfig(url));
    await store.migrate(listIndexes());
    await store.records.insertMany('students', [
      student('stu_1', 'Zoltán Berg', 'zoltan.berg@learners.example', T0 + 1),
      student('stu_2', 'Ada "Quote" Lovelace', 'ada@example.com', T0 + 2),
      student('stu_3', 'Percent 100% Under_score', 'pu@example.com', T0 + 3),
    ]);
    await store.records.insert('students', student('stu_4', 'Grace Hopper', 'grace@navy.example', T0 + 4));
  });

  afterAll(() => store?.close());

  it('finds a case-insensitive substring of any searchable column, in list order', async () => {
    expect(await search('BERG')).toEqual(['stu_1']);
    expect(await search('example')).toEqual(['stu_1', 'stu_2', 'stu_3', 'stu_4']);
    expect(await search('navy.ex')).toEqual(['stu_4']);
    expect(await search('ltán')).toEqual(['stu_1']);
    expect(await search('nobody here')).toEqual([]);
  });

  it('takes quotes, % and _ literally, and short text too', async () => {
    expect(await search('"Quote"')).toEqual(['stu_2']);
    expect(await search('"')).toEqual(['stu_2']);
    expect(await search('100%')).toEqual(['stu_3']);
    expect(await search('r_s')).toEqual(['stu_3']);
    expect(await search('_')).toEqual(['stu_3']);
    expect(await search('gr')).toEqual(['stu_4']);
  });

  it('follows updates and deletes', async () => {
    await store.records.update('students', 'stu_4', { name: 'Grace Brewster Murray' });
    expect(await search('Brewster')).toEqual(['stu_4']);
    expect(await search('Hopper')).toEqual([]);
    expect(await store.records.delete('students', 'stu_4')).toBe(true);
    expect(await search('Brewster')).toEqual([]);
    expect(await search('grace')).toEqual([]);
  });

  it.runIf(kind === 'sqlite')('is still right after VACUUM renumbers the rows', async () => {
    // Delete a row before others so that VACUUM has rowids to close up.
    await store.records.insert('students', student('stu_5', 'Temporary Row', 'tmp@example.com', T0 + 5));
    await store.records.insert('students', student('stu_6', 'Margaret Hamilton', 'mh@example.com', T0 + 6));
    await store.records.delete('students', 'stu_5');
    await store.close();
    const raw = new SQLite(url);
    raw.exec('vacuum');
    raw.close();
    store = openStore(databaseConfig(url));
    expect(await search('Hamilton')).toEqual(['stu_6']);
    await store.records.update('students', 'stu_6', { name: 'Margaret Heafield' });
    expect(await search('Heafield')).toEqual(['stu_6']);
    expect(await search('Hamilton')).toEqual([]);
    expect(await search('BERG')).toEqual(['stu_1']);
  });
});
