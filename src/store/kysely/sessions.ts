import type { Kysely } from 'kysely';
import type { SessionStore } from '../types.ts';
import type { Database } from './schema.ts';
import { purgeInBatches } from './tokens.ts';

export function kyselySessionStore(db: Kysely<Database>): SessionStore {
  return {
    async create(s) {
      await db
        .insertInto('sessions')
        .values({ hash: s.hash, user_id: s.userId, auth_time: s.authTime, expires_at: s.expiresAt })
        .execute();
    },
    async findLive(hash, now) {
      const row = await db
        .selectFrom('sessions')
        .selectAll()
        .where('hash', '=', hash)
        .where('expires_at', '>', now)
        .executeTakeFirst();
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
    async purgeExpired(before) {
      return purgeInBatches(async (limit) => {
        const r = await db
          .deleteFrom('sessions')
          .where('hash', 'in', db.selectFrom('sessions').select('hash').where('expires_at', '<', before).limit(limit))
          .executeTakeFirst();
        const deleted = Number(r.numDeletedRows);
        return { deleted, examined: deleted };
      });
    },
  };
}
