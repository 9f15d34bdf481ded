import SQLite from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AREA_LIST } from '../../src/platform/areas.ts';
import { openStore } from '../../src/store/kysely/open.ts';
import type { Store } from '../../src/store/types.ts';
import { databaseConfig, freshDatabaseUrl, STORE_KINDS } from '../helpers/stores.ts';

/** The areas anonymous callers list, with the query the record store runs for their first page. */
const PUBLIC = AREA_LIST.filter((a) => a.publicRead?.published).map((a) => {
  const sort = a.sort ?? 'created_at';
  const upcoming = a.publicRead?.upcoming;
  return {
    table: a.name,
    query: (p: (i: number) => string) => `select * from "${a.name}" where "status" = ${p(1)}${upcoming ? ` and "${upcoming}" >= ${p(2)}` : ''} order by "${sort}", "id" limit ${p(upcoming ? 3 : 2)}`,
    params: upcoming ? ['published', Date.now(), 21] : ['published', 21],
  };
});

describe.each(STORE_KINDS)('the public listings are served by an index, without sorting (%s)', (kind) => {
  let url: string;
  let store: Store;

  beforeAll(async () => {
    url = await freshDatabaseUrl(kind);
    store = openStore(databaseConfig(url));
    await store.migrate();
  });

  afterAll(async () => {
    await store?.close();
  });

  it('covers every area with a published public view', () => {
    expect(PUBLIC.map((p) => p.table).sort()).toEqual(['courses', 'digital_products', 'events', 'membership_plans', 'pages', 'posts']);
  });

  it("each first page reads its area's (status, sort, id) index in order", async () => {
    if (kind === 'sqlite') {
      const db = new SQLite(url, { readonly: true });
      try {
        for (const { table, query, params } of PUBLIC) {
          const plan = db
            .prepare(`EXPLAIN QUERY PLAN ${query(() => '?')}`)
            .all(...params)
            .map((r) => (r as { detail: string }).detail)
            .join('; ');
          expect(plan, table).toContain(`USING INDEX ${table}_public_listing`);
          expect(plan, table).not.toContain('TEMP B-TREE');
        }
      } finally {
        db.close();
      }
      return;
    }
    // The tables are empty, so the planner must be told to prefer an index it would otherwise not need yet.
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      await c.query('SET enable_seqscan = off');
      await c.query('SET enable_sort = off');
      for (const { table, query, params } of PUBLIC) {
        const plan = (await c.query(`EXPLAIN ${query((i) => `$${i}`)}`, params)).rows.map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']).join('; ');
        expect(plan, table).toContain(`${table}_public_listing`);
        expect(plan, table).not.toMatch(/\bSort\b/);
      }
    } finally {
      await c.end();
    }
  });
});
