import type { Kysely } from 'kysely';

/**
 * The activity log (src/store/repositories/activity.ts). No foreign keys: an
 * entry outlives the person, the app and the record it names, so the log
 * still says who did what after they are gone. Each filter a reader uses
 * most (a person, an app, a record) has an index ending in the list's order,
 * (at, id), so a page is a range of one index; the purge walks `at`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('activity')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text')
    .addColumn('client_id', 'text')
    .addColumn('client_name', 'text')
    .addColumn('client_kind', 'text')
    .addColumn('via', 'text', (c) => c.notNull())
    .addColumn('operation', 'text', (c) => c.notNull())
    .addColumn('record_type', 'text')
    .addColumn('record_id', 'text')
    .addColumn('fields', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('activity_at').on('activity').columns(['at', 'id']).execute();
  await db.schema.createIndex('activity_user_at').on('activity').columns(['user_id', 'at', 'id']).execute();
  await db.schema.createIndex('activity_client_at').on('activity').columns(['client_id', 'at', 'id']).execute();
  await db.schema.createIndex('activity_record_at').on('activity').columns(['record_id', 'at', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('activity').execute();
}
