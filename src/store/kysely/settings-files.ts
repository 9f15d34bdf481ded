import { appendActivity, writing } from './activity.ts';
import { sql, type Kysely } from 'kysely';
import type { FileStore, SettingsStore } from '../types.ts';
import type { Database } from './schema.ts';
import { insertIfRoom } from './conditional-insert.ts';

export function kyselySettingsStore(db: Kysely<Database>): SettingsStore {
  return {
    async get(name) {
      const row = await db.selectFrom('settings').select('value').where('name', '=', name).executeTakeFirst();
      return row && (JSON.parse(row.value) as Record<string, unknown>);
    },
    async put(name, value, now, activity) {
      await writing(db, activity, (trx) =>
        trx
          .insertInto('settings')
          .values({ name, value: JSON.stringify(value), updated_at: now })
          .onConflict((oc) => oc.column('name').doUpdateSet({ value: JSON.stringify(value), updated_at: now }))
          .execute(),
      );
    },
  };
}

/**
 * The files of the school. insertWithinQuota is one conditional INSERT ... SELECT
 * ... WHERE used + size <= quota. On SQLite a writing statement takes the
 * database's single write lock before it reads, so the sum it sees cannot
 * change under it, across processes too. On PostgreSQL two READ COMMITTED
 * transactions would each sum the table without the other's new row and both
 * insert; the transaction first locks the table in SHARE ROW EXCLUSIVE mode,
 * which conflicts with itself and with every INSERT and DELETE but not with
 * reads, so quota checks run one at a time while downloads and lists go on.
 */
export function kyselyFileStore(db: Kysely<Database>, kind: 'sqlite' | 'postgres'): FileStore {
  const toFile = (r: Database['files']) => ({
    id: r.id,
    name: r.name,
    contentType: r.content_type,
    size: Number(r.size),
    sha256: r.sha256,
    uploadedBy: r.uploaded_by,
    createdAt: Number(r.created_at),
  });
  const usedBytes = async () => {
    const r = await db
      .selectFrom('files')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('size'), eb.lit(0)).as('used'))
      .executeTakeFirstOrThrow();
    return Number(r.used);
  };
  return {
    async insert(f) {
      await db
        .insertInto('files')
        .values({ id: f.id, name: f.name, content_type: f.contentType, size: f.size, sha256: f.sha256, uploaded_by: f.uploadedBy, created_at: f.createdAt, updated_at: f.createdAt })
        .execute();
    },
    async insertWithinQuota(f, quotaBytes, activity) {
      // Explicit casts: PostgreSQL gives untyped parameters in a SELECT list the type text.
      const insertIfItFits = sql`
        insert into files (id, name, content_type, size, sha256, uploaded_by, created_at, updated_at)
        select cast(${f.id} as text), cast(${f.name} as text), cast(${f.contentType} as text), cast(${f.size} as integer),
               cast(${f.sha256} as text), cast(${f.uploadedBy} as text), cast(${f.createdAt} as bigint), cast(${f.createdAt} as bigint)
        where (select coalesce(sum(size), 0) from files) + cast(${f.size} as bigint) <= cast(${quotaBytes} as bigint)`;
      return (await insertIfRoom(db, kind, 'files', insertIfItFits, activity && ((trx) => appendActivity(trx, activity)))) ? { stored: true } : { stored: false, usedBytes: await usedBytes() };
    },
    usedBytes,
    async find(id) {
      const r = await db.selectFrom('files').selectAll().where('id', '=', id).executeTakeFirst();
      return r && toFile(r);
    },
    async list(limit) {
      const rows = await db.selectFrom('files').selectAll().orderBy('created_at', 'desc').orderBy('id').limit(limit).execute();
      return rows.map(toFile);
    },
    async delete(id, activity) {
      return writing(
        db,
        activity,
        async (trx) => Number((await trx.deleteFrom('files').where('id', '=', id).executeTakeFirst()).numDeletedRows) > 0,
        (deleted) => deleted,
      );
    },
  };
}
