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
          .values({ hash: key, failures: 0, blocked_until: 0, expires_at: now + keepMs, pending: 0, pending_until: 0 })
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
    async begin(key, now, { free, pendingMs }) {
      return db.transaction().execute(async (trx) => {
        // Racing checks of one key queue on the row, as in claim().
        const row = await trx
          .insertInto('password_failures')
          .values({ hash: key, failures: 0, blocked_until: 0, expires_at: now + pendingMs, pending: 0, pending_until: 0 })
          .onConflict((oc) => oc.column('hash').doUpdateSet((eb) => ({ hash: eb.ref('excluded.hash') })))
          .returning(['failures', 'blocked_until', 'expires_at', 'pending', 'pending_until'])
          .executeTakeFirstOrThrow();
        const live = Number(row.expires_at) > now;
        const failures = live ? Number(row.failures) : 0;
        const blockedUntil = live ? Number(row.blocked_until) : 0;
        if (blockedUntil > now) return { state: 'refused', failures, blockedUntil } as const;
        const pending = Number(row.pending_until) > now ? Number(row.pending) : 0;
        // Were every check in flight wrong, the count would reach the free failures: wait for their answers.
        if (pending > 0 && failures + pending >= free) return { state: 'busy' } as const;
        await trx
          .updateTable('password_failures')
          .set({ failures, blocked_until: blockedUntil, pending: pending + 1, pending_until: now + pendingMs, expires_at: Math.max(live ? Number(row.expires_at) : 0, now + pendingMs) })
          .where('hash', '=', key)
          .execute();
        return { state: 'allowed' } as const;
      });
    },
    async finish(key, right, now, delayFor, keepMs) {
      return db.transaction().execute(async (trx) => {
        const row = await trx
          .insertInto('password_failures')
          .values({ hash: key, failures: 0, blocked_until: 0, expires_at: now, pending: 0, pending_until: 0 })
          .onConflict((oc) => oc.column('hash').doUpdateSet((eb) => ({ hash: eb.ref('excluded.hash') })))
          .returning(['failures', 'expires_at', 'pending', 'pending_until'])
          .executeTakeFirstOrThrow();
        const pending = Number(row.pending_until) > now ? Math.max(0, Number(row.pending) - 1) : 0;
        if (right) {
          if (pending === 0) await trx.deleteFrom('password_failures').where('hash', '=', key).execute();
          else await trx.updateTable('password_failures').set({ failures: 0, blocked_until: 0, pending }).where('hash', '=', key).execute();
          return { failures: 0, blockedUntil: 0 };
        }
        const failures = (Number(row.expires_at) > now ? Number(row.failures) : 0) + 1;
        const next = now + delayFor(failures);
        const blockedUntil = next > now ? next : 0;
        await trx
          .updateTable('password_failures')
          .set({ failures, blocked_until: blockedUntil, pending, expires_at: Math.max(next, Number(row.pending_until)) + keepMs })
          .where('hash', '=', key)
          .execute();
        return { failures, blockedUntil };
      });
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
