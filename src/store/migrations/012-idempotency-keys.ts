import type { Kysely } from 'kysely';

/**
 * The answers to POST requests under /api/v1 that carried an Idempotency-Key
 * (src/platform/idempotency.ts), so that a retry with the same key gets the
 * first answer instead of doing the work again. The primary key is the
 * SHA-256 of caller, method, path and key: two racing requests with the same
 * key meet on it, and the database lets one of them in, on SQLite and
 * PostgreSQL alike. `status` and `response` stay null while the first request
 * runs; the response is sealed (JWE) because it may hold a secret shown once.
 * The background purge deletes rows once `expires_at` has passed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('hash', 'text', (c) => c.primaryKey())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('status', 'integer')
    .addColumn('response', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('idempotency_keys_expires_at').on('idempotency_keys').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('idempotency_keys').execute();
}
