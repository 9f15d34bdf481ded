import type { Kysely, Selectable } from 'kysely';
import type { IdempotencyKeyStore, IdempotencyRecord } from '../types.ts';
import { purgeBefore } from './purge.ts';
import type { Database, IdempotencyKeysTable } from './schema.ts';

const toRecord = (r: Selectable<IdempotencyKeysTable>): IdempotencyRecord => ({
  hash: r.hash,
  fingerprint: r.fingerprint,
  status: r.status === null ? null : Number(r.status),
  response: r.response,
  createdAt: Number(r.created_at),
  expiresAt: Number(r.expires_at),
});

export function kyselyIdempotencyKeyStore(db: Kysely<Database>, maintenance: Kysely<Database> = db): IdempotencyKeyStore {
  const find = async (hash: string) => {
    const row = await db.selectFrom('idempotency_keys').selectAll().where('hash', '=', hash).executeTakeFirst();
    return row && toRecord(row);
  };
  return {
    async claim(row, staleBefore) {
      const values = { hash: row.hash, fingerprint: row.fingerprint, status: null, response: null, created_at: row.createdAt, expires_at: row.expiresAt };
      // The primary key decides between racing claims: one insert goes in, the others do nothing.
      const inserted = await db
        .insertInto('idempotency_keys')
        .values(values)
        .onConflict((oc) => oc.column('hash').doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) return { claimed: true };
      // A row still running long after its start belongs to a request that died with its
      // process; one conditional update hands it over, so racing claimers never both get it.
      const takenOver = await db
        .updateTable('idempotency_keys')
        .set({ fingerprint: row.fingerprint, created_at: row.createdAt, expires_at: row.expiresAt })
        .where('hash', '=', row.hash)
        .where('status', 'is', null)
        .where('created_at', '<', staleBefore)
        .executeTakeFirst();
      if (Number(takenOver.numUpdatedRows) > 0) return { claimed: true };
      const existing = await find(row.hash);
      // Released between the insert and the read: claim again, once; a second loss is a plain "running".
      if (!existing) {
        const again = await db
          .insertInto('idempotency_keys')
          .values(values)
          .onConflict((oc) => oc.column('hash').doNothing())
          .executeTakeFirst();
        if (Number(again.numInsertedOrUpdatedRows ?? 0) > 0) return { claimed: true };
        return { claimed: false, existing: { ...row, status: null, response: null } };
      }
      return { claimed: false, existing };
    },
    async complete(hash, status, response) {
      const r = await db.updateTable('idempotency_keys').set({ status, response }).where('hash', '=', hash).where('status', 'is', null).executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
    async release(hash) {
      await db.deleteFrom('idempotency_keys').where('hash', '=', hash).where('status', 'is', null).execute();
    },
    find,
    async purgeExpired(before) {
      return purgeBefore(maintenance, 'idempotency_keys', 'expires_at', before);
    },
  };
}
