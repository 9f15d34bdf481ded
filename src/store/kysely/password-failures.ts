import type { Kysely } from 'kysely';
import type { PasswordFailureStore } from '../types.ts';
import { purgeBefore } from './purge.ts';
import type { Database } from './schema.ts';

export function kyselyPasswordFailureStore(db: Kysely<Database>, maintenance: Kysely<Database> = db): PasswordFailureStore {
  return {
    async claim(key, now, delayFor, keepMs) {
      return db.transaction().execute(async (trx) => {
        // The upsert creates the key's row or touches it, and so holds it until commit: racing
        // claims of one key, from any instance, queue here and each sees the one before it
        // (PostgreSQL's row lock; SQLite's single writer).
        const row = await trx
          .insertInto('password_failures')
          .values({ hash: key, failures: 0, blocked_until: 0, expires_at: now + keepMs })
          .onConflict((oc) => oc.column('hash').doUpdateSet((eb) => ({ hash: eb.ref('excluded.hash') })))
          .returning(['failures', 'blocked_until', 'expires_at'])
          .executeTakeFirstOrThrow();
        const live = Number(row.expires_at) > now;
        const previous = live ? Number(row.failures) : 0;
        const blockedUntil = live ? Number(row.blocked_until) : 0;
        if (blockedUntil > now) return { allowed: false, failures: previous, blockedUntil };
        const failures = previous + 1;
        const next = now + delayFor(failures);
        // A check that starts no wait records none: stored as `now`, it would refuse a racing
        // claim whose own clock read came a moment earlier (two correct sign-ins at once).
        await trx
          .updateTable('password_failures')
          .set({ failures, blocked_until: next > now ? next : 0, expires_at: next + keepMs })
          .where('hash', '=', key)
          .execute();
        return { allowed: true, failures, blockedUntil: next };
      });
    },
    async clear(key) {
      await db.deleteFrom('password_failures').where('hash', '=', key).execute();
    },
    async forgive(key, blockedUntil) {
      await db
        .updateTable('password_failures')
        .set((eb) => ({
          failures: eb('failures', '-', 1),
          // The wait this check started, if it is still the latest one; a later claim's wait stays.
          blocked_until: eb.case().when('blocked_until', '=', blockedUntil).then(0).else(eb.ref('blocked_until')).end(),
        }))
        .where('hash', '=', key)
        .where('failures', '>', 0)
        .execute();
    },
    async purgeExpired(before) {
      return purgeBefore(maintenance, 'password_failures', 'expires_at', before);
    },
  };
}
