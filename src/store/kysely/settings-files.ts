import type { Kysely } from 'kysely';
import type { FileStore, SettingsStore } from '../types.ts';
import type { Database } from './schema.ts';

export function kyselySettingsStore(db: Kysely<Database>): SettingsStore {
  return {
    async get(name) {
      const row = await db.selectFrom('settings').select('value').where('name', '=', name).executeTakeFirst();
      return row && (JSON.parse(row.value) as Record<string, unknown>);
    },
    async put(name, value, now) {
      await db
        .insertInto('settings')
        .values({ name, value: JSON.stringify(value), updated_at: now })
        .onConflict((oc) => oc.column('name').doUpdateSet({ value: JSON.stringify(value), updated_at: now }))
        .execute();
    },
  };
}

export function kyselyFileStore(db: Kysely<Database>): FileStore {
  const toFile = (r: Database['files']) => ({
    id: r.id,
    name: r.name,
    contentType: r.content_type,
    size: Number(r.size),
    sha256: r.sha256,
    uploadedBy: r.uploaded_by,
    createdAt: Number(r.created_at),
  });
  return {
    async insert(f) {
      await db
        .insertInto('files')
        .values({ id: f.id, name: f.name, content_type: f.contentType, size: f.size, sha256: f.sha256, uploaded_by: f.uploadedBy, created_at: f.createdAt, updated_at: f.createdAt })
        .execute();
    },
    async find(id) {
      const r = await db.selectFrom('files').selectAll().where('id', '=', id).executeTakeFirst();
      return r && toFile(r);
    },
    async list(limit) {
      const rows = await db.selectFrom('files').selectAll().orderBy('created_at', 'desc').orderBy('id').limit(limit).execute();
      return rows.map(toFile);
    },
    async delete(id) {
      const r = await db.deleteFrom('files').where('id', '=', id).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },
  };
}
