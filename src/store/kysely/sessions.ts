import type { Kysely } from 'kysely';
import type { SessionStore } from '../types.ts';
import type { Database } from './schema.ts';
import { purgeBefore } from './purge.ts';

export function kyselySessionStore(db: Kysely<Database>, maintenance: Kysely<Database> = db): SessionStore {
  return {
    async create(s) {
      await db.insertInto('sessions').values({ hash: s.hash, user_id: s.userId, auth_time: s.authTime, expires_at: s.expiresAt }).execute();
    },
    async findLive(hash, now) {
      const row = await db.selectFrom('sessions').selectAll().where('hash', '=', hash).where('expires_at', '>', now).executeTakeFirst();
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
