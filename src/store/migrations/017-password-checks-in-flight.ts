import type { Kysely } from 'kysely';

/**
 * Password checks in flight per account (src/users/sign-in-throttle.ts). A
 * check used to be counted as a failure before the password was verified, so
 * that parallel guesses could not all slip in before any was counted; but
 * then a few correct sign-ins at once reached the wait, and were refused. Now
 * a check is `pending` until its answer is known, and one that could take
 * the count past the free failures waits for those before it instead. A
 * pending count is forgotten at `pending_until`, so an instance that stopped
 * in the middle of a check blocks nothing for long.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('password_failures')
    .addColumn('pending', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('password_failures')
    .addColumn('pending_until', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('password_failures').dropColumn('pending_until').execute();
  await db.schema.alterTable('password_failures').dropColumn('pending').execute();
}
