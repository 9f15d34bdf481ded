import type { Kysely } from 'kysely';
import type { SessionStore } from '../types.ts';
import { compiledInsert, compiledLookup } from './compiled-shapes.ts';
import type { Database } from './schema.ts';
import { purgeBefore } from './purge.ts';

export function kyselySessionStore(db: Kysely<Database>, maintenance: Kysely<Database> = db): SessionStore {
  // Written on every sign-in and read on every authorization request: compiled once.
  const insert = compiledInsert(db, 'sessions');
  const findLive = compiledLookup(db, (value) =>
    db
      .selectFrom('sessions')
      .selectAll()
      .where('hash', '=', value(0) as string)
      .where('expires_at', '>', value(1) as number),
  );
  return {
    async create(s) {
      await insert(db, [{ hash: s.hash, user_id: s.userId, auth_time: s.authTime, expires_at: s.expiresAt }]);
    },
    async findLive(hash, now) {
      const row = await findLive(hash, now);
      return (
        row && {
          hash: row.hash,
          userId: row.user_id,
          authTime: Number(row.auth_time),
          expiresAt: Number(row.expires_at),
        }
      );
    },
    async delete(hash) {
      await db.deleteFrom('sessions').where('hash', '=', hash).execute();
    },
    async deleteForUser(userId, exceptHash) {
      let q = db.deleteFrom('sessions').where('user_id', '=', userId);
      if (exceptHash !== undefined) q = q.where('hash', '!=', exceptHash);
      const r = await q.executeTakeFirst();
      return Number(r.numDeletedRows);
    },
    async purgeExpired(before) {
      return purgeBefore(maintenance, 'sessions', 'expires_at', before);
    },
  };
}
