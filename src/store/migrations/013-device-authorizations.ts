import type { Kysely } from 'kysely';

/**
 * Device authorizations (RFC 8628): one row per device code, keyed by its
 * SHA-256, with the SHA-256 of its user code unique beside it (the page
 * looks codes up by it, and two live codes must never share one). A row
 * leaves with its client or its user; the background purge deletes it a day
 * after `expires_at`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('device_authorizations')
    .addColumn('hash', 'text', (c) => c.primaryKey())
    .addColumn('user_code_hash', 'text', (c) => c.notNull().unique())
    .addColumn('client_id', 'text', (c) => c.notNull().references('clients.id').onDelete('cascade'))
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('resource', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('auth_time', 'bigint')
    .addColumn('family_id', 'text', (c) => c.notNull())
    .addColumn('poll_interval', 'integer', (c) => c.notNull())
    .addColumn('last_polled_at', 'bigint')
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('device_authorizations_expires_at').on('device_authorizations').column('expires_at').execute();
  await db.schema.createIndex('device_authorizations_client_user').on('device_authorizations').columns(['client_id', 'user_id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('device_authorizations').execute();
}
