import type { Kysely } from 'kysely';
import type { PasswordFailureStore } from '../types.ts';
import { purgeBefore } from './purge.ts';
import type { Database } from './schema.ts';

export function kyselyPasswordFailureStore(db: Kysely<Database>, maintenance: Kysely<Database> = db): PasswordFailureStore {
  return {
    async find(key, now) {
      const row = await db
        .selectFrom('password_failures')
        .select(['failures', 'blocked_until'])
        .where('hash', '=', key)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return row && { failures: Number(row.failures), blockedUntil: Number(row.blocked_until) };
    },
    async recordFailure(key, now, delayFor, keepMs) {
      return db.transaction().execute(async (trx) => {
        // One statement counts the failure: concurrent upserts of one key queue on its row, so
        // each caller gets a count of its own (PostgreSQL row lock; SQLite's single writer).
        const counted = await trx
          .insertInto('password_failures')
          .values({ hash: key, failures: 1, blocked_until: now, expires_at: now + keepMs })
          .onConflict((oc) =>
            oc.column('hash').doUpdateSet((eb) => ({
              failures: eb
                .case()
                .when('password_failures.expires_at', '<=', now)
                .then(1)
                .else(eb('password_failures.failures', '+', 1))
                .end(),
            })),
          )
          .returning('failures')
          .executeTakeFirstOrThrow();
        const failures = Number(counted.failures);
        const blockedUntil = now + delayFor(failures);
        await trx
          .updateTable('password_failures')
          .set({ blocked_until: blockedUntil, expires_at: blockedUntil + keepMs })
          .where('hash', '=', key)
          .execute();
        return { failures, blockedUntil };
      });
    },
    async clear(key) {
      await db.deleteFrom('password_failures').where('hash', '=', key).execute();
    },
    async purgeExpired(before) {
      return purgeBefore(maintenance, 'password_failures', 'expires_at', before);
    },
  };
}
