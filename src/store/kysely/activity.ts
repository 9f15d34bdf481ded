import type { Kysely, Selectable, Transaction } from 'kysely';
import type { ActivityEntry, ActivityStore } from '../types.ts';
import { inBatches } from './purge.ts';
import type { ActivityTable, Database } from './schema.ts';

type Executor = Kysely<Database> | Transaction<Database>;

const toRow = (e: ActivityEntry): ActivityTable => ({
  id: e.id,
  at: e.at,
  event: e.event,
  user_id: e.userId,
  client_id: e.clientId,
  client_name: e.clientName,
  client_kind: e.clientKind,
  via: e.via,
  operation: e.operation,
  record_type: e.recordType,
  record_id: e.recordId,
  fields: JSON.stringify(e.fields),
});

const fromRow = (r: Selectable<ActivityTable>): ActivityEntry => ({
  id: r.id,
  at: Number(r.at),
  event: r.event,
  userId: r.user_id,
  clientId: r.client_id,
  clientName: r.client_name,
  clientKind: r.client_kind,
  via: r.via,
  operation: r.operation,
  recordType: r.record_type,
  recordId: r.record_id,
  fields: JSON.parse(r.fields) as string[],
});

/** Appends `entry` on `db`, which a write passes its open transaction as. */
export async function appendActivity(db: Executor, entry: ActivityEntry): Promise<void> {
  await db.insertInto('activity').values(toRow(entry)).execute();
}

/**
 * Runs a store write and, when it `happened` (a row was changed, not an
 * unknown id), appends its entry in the same transaction: the change and its
 * line in the log are committed together or not at all. Without an entry
 * the write runs as it always did, with no transaction added.
 */
export async function writing<T>(db: Kysely<Database>, entry: ActivityEntry | undefined, work: (db: Executor) => Promise<T>, happened: (result: T) => boolean = () => true): Promise<T> {
  if (!entry) return work(db);
  return db.transaction().execute(async (trx) => {
    const result = await work(trx);
    if (happened(result)) await appendActivity(trx, entry);
    return result;
  });
}

export function kyselyActivityStore(db: Kysely<Database>, maintenance: Kysely<Database>): ActivityStore {
  return {
    append: (entry) => appendActivity(db, entry),
    async list(q) {
      const rows = await db
        .selectFrom('activity')
        .selectAll()
        .where((eb) => {
          const all = [];
          if (q.userId !== undefined) all.push(eb('user_id', '=', q.userId));
          if (q.clientId !== undefined) all.push(eb('client_id', '=', q.clientId));
          if (q.recordId !== undefined) all.push(eb('record_id', '=', q.recordId));
          if (q.recordType !== undefined) all.push(eb('record_type', '=', q.recordType));
          if (q.operation !== undefined) all.push(eb('operation', '=', q.operation));
          if (q.event !== undefined) all.push(eb('event', '=', q.event));
          if (q.since !== undefined) all.push(eb('at', '>=', q.since));
          if (q.until !== undefined) all.push(eb('at', '<', q.until));
          // A row-value comparison, so the page starts where the index range does.
          if (q.before) all.push(eb(eb.refTuple('at', 'id'), '<', eb.tuple(q.before[0], q.before[1])));
          return eb.and(all);
        })
        .orderBy('at', 'desc')
        .orderBy('id', 'desc')
        .limit(q.limit + 1)
        .execute();
      const page = rows.slice(0, q.limit).map(fromRow);
      const last = page[page.length - 1];
      return { entries: page, ...(rows.length > q.limit && last ? { next: [last.at, last.id] as [number, string] } : {}) };
    },
    purgeBefore(before) {
      return inBatches(async (limit) => {
        const r = await maintenance
          .deleteFrom('activity')
          .where('id', 'in', maintenance.selectFrom('activity').select('id').where('at', '<', before).limit(limit))
          .executeTakeFirst();
        return Number(r.numDeletedRows);
      });
    },
  };
}
