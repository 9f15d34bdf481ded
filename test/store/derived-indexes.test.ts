/**
 * The indexes the store derives at migration (src/store/kysely/derived-indexes.ts),
 * on each store: a missing one is made, one an existing index already serves
 * is not, one no longer asked for goes, a long name fits PostgreSQL's limit,
 * and instances migrating at once all succeed.
 */
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { listIndexes } from '../../src/platform/list-indexes.ts';
import { derivedIndexName } from '../../src/store/kysely/derived-indexes.ts';
import { openStore } from '../../src/store/kysely/open.ts';
import { databaseConfig, freshDatabaseUrl, STORE_KINDS, type StoreKind } from '../helpers/stores.ts';

/** Index name → columns of `table`, read from the database's catalog. */
async function indexes(kind: StoreKind, url: string, table: string): Promise<Record<string, string[]>> {
  if (kind === 'sqlite') {
    const db = new SQLite(url, { readonly: true });
    try {
      const names = db.prepare('select name from pragma_index_list(?)').all(table) as { name: string }[];
      return Object.fromEntries(names.map(({ name }) => [name, (db.prepare('select name from pragma_index_info(?) order by seqno').all(name) as { name: string }[]).map((r) => r.name)]));
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ indexname: string; indexdef: string }>('select indexname, indexdef from pg_indexes where tablename = $1 and schemaname = current_schema()', [table]);
    return Object.fromEntries(rows.map((r) => [r.indexname, /\((.*)\)$/.exec(r.indexdef)![1]!.split(', ')]));
  } finally {
    await client.end();
  }
}

describe.each(STORE_KINDS)('derived indexes on %s', (kind) => {
  it('makes what is missing, leaves what an index serves, drops what is no longer asked for', async () => {
    const url = await freshDatabaseUrl(kind);
    const store = openStore(databaseConfig(url));
    try {
      const wanted = { table: 'coupons', columns: ['active', 'created_at', 'id'] };
      // (created_at, id) is served by the index every platform table has had since migration 003.
      await store.migrate([wanted, { table: 'coupons', columns: ['created_at', 'id'] }]);
      const made = await indexes(kind, url, 'coupons');
      expect(made[derivedIndexName(wanted)]).toEqual(wanted.columns);
      expect(Object.keys(made).filter((n) => n.startsWith('lx_'))).toEqual([derivedIndexName(wanted)]);

      await store.migrate([wanted]);
      expect(await indexes(kind, url, 'coupons')).toEqual(made);

      await store.migrate([]);
      const after = await indexes(kind, url, 'coupons');
      expect(Object.keys(after).filter((n) => n.startsWith('lx_'))).toEqual([]);
      expect(Object.keys(after).sort()).toEqual(
        Object.keys(made)
          .filter((n) => !n.startsWith('lx_'))
          .sort(),
      );
    } finally {
      await store.close();
    }
  });

  it('gives a long index a name PostgreSQL keeps whole, the same each time', () => {
    const spec = { table: 'membership_plans_with_a_very_long_name', columns: ['some_long_column_name', 'created_at', 'id'] };
    expect(derivedIndexName(spec).length).toBeLessThanOrEqual(63);
    expect(derivedIndexName(spec)).toBe(derivedIndexName({ ...spec }));
    expect(derivedIndexName(spec)).not.toBe(derivedIndexName({ ...spec, columns: ['other', 'created_at', 'id'] }));
  });

  it('four instances migrating a fresh database at once all succeed and make every list index once', async () => {
    const url = await freshDatabaseUrl(kind);
    const stores = Array.from({ length: 4 }, () => openStore(databaseConfig(url)));
    try {
      await Promise.all(stores.map((s) => s.migrate(listIndexes())));
      const enrollments = await indexes(kind, url, 'enrollments');
      expect(enrollments['lx_enrollments__course_id__created_at__id']).toEqual(['course_id', 'created_at', 'id']);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });
});
