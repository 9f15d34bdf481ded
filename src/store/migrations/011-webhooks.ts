import { sql, type Kysely } from 'kysely';

/**
 * Webhooks: subscriptions, the outbox of events and one delivery row per
 * (event, subscription).
 *
 * - `webhook_subscriptions`: the receiver's URL, the event types it wants
 *   (JSON text), its signing secret sealed (a compact JWE, never in clear),
 *   `enabled` (0/1) with the reason it was switched off, and how many of its
 *   deliveries in a row ran out of attempts.
 * - `webhook_events`: what happened, written in the same transaction as the
 *   change that caused it (an outbox); only when a subscription wants it.
 * - `webhook_deliveries`: the work and its log. A worker claims a due row by
 *   setting `lease_until`; a crashed worker's lease runs out and another
 *   instance takes the row again (at least once).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_subscriptions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('sealed_secret', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('disabled_reason', 'text')
    .addColumn('failed_deliveries', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_subscriptions_created_at').on('webhook_subscriptions').columns(['created_at', 'id']).execute();
  await db.schema
    .createTable('webhook_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('event_id', 'text', (c) => c.notNull().references('webhook_events.id').onDelete('cascade'))
    .addColumn('subscription_id', 'text', (c) => c.notNull().references('webhook_subscriptions.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'bigint')
    .addColumn('lease_until', 'bigint')
    .addColumn('last_attempt_at', 'bigint')
    .addColumn('last_status_code', 'integer')
    .addColumn('last_duration_ms', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // What the workers look for: pending rows by when they are due (the others have next_attempt_at null).
  await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').column('next_attempt_at').where(sql.ref('status'), '=', 'pending').execute();
  await db.schema.createIndex('webhook_deliveries_log').on('webhook_deliveries').columns(['subscription_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('webhook_deliveries_event').on('webhook_deliveries').column('event_id').execute();
  // What the background purge looks for: finished deliveries, and events, by age.
  await db.schema.createIndex('webhook_deliveries_finished').on('webhook_deliveries').column('created_at').where(sql.ref('status'), '<>', 'pending').execute();
  await db.schema.createIndex('webhook_events_created_at').on('webhook_events').column('created_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhook_events').execute();
  await db.schema.dropTable('webhook_subscriptions').execute();
}
