import type { Kysely } from 'kysely';

/**
 * Failed password checks per account (src/users/sign-in-throttle.ts), shared
 * by every instance on the database so that a guesser spread over several
 * instances and addresses meets one count. The key is the SHA-256 of the
 * normalized email, for unknown emails too: the table names no one. Rows
 * expire a while after their last delay ends and the background purge
 * deletes them, so guesses at made-up emails cannot grow it for long.
 *
 * Also an index on sessions.user_id: a password change ends every session
 * of the user, which would otherwise read the whole table.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('password_failures')
    .addColumn('hash', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('blocked_until', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('password_failures_expires_at').on('password_failures').column('expires_at').execute();
  await db.schema.createIndex('sessions_user_id').on('sessions').column('user_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('sessions_user_id').execute();
  await db.schema.dropTable('password_failures').execute();
}
