import type { Kysely } from 'kysely';

/**
 * The tables anonymous callers list (GET /api/v1/<area> without a token, the
 * MCP catalog tools): only published rows, in the area's order. The query is
 * `WHERE status = 'published' [AND starts_at >= now] ORDER BY <sort>, id
 * LIMIT n`. With only a `status` index, the database found every published
 * row and sorted them all for each page (SQLite: "USE TEMP B-TREE FOR ORDER
 * BY"), a cost that grows with the catalog; an index on (status, sort, id)
 * hands out the page in order and stops after n rows. It serves a `status`
 * filter alone as well, so the single-column index it replaces goes.
 * Listed here rather than read from the area declarations: a migration must
 * not change when they do.
 */
const PUBLIC_LISTINGS: { table: string; sort: string }[] = [
  { table: 'courses', sort: 'created_at' },
  { table: 'membership_plans', sort: 'created_at' },
  { table: 'digital_products', sort: 'created_at' },
  { table: 'events', sort: 'starts_at' },
  { table: 'posts', sort: 'created_at' },
  { table: 'pages', sort: 'created_at' },
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const { table, sort } of PUBLIC_LISTINGS) {
    await db.schema.createIndex(`${table}_public_listing`).on(table).columns(['status', sort, 'id']).execute();
    await db.schema.dropIndex(`${table}_status`).execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const { table } of PUBLIC_LISTINGS) {
    await db.schema.createIndex(`${table}_status`).on(table).column('status').execute();
    await db.schema.dropIndex(`${table}_public_listing`).execute();
  }
}
