import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool } from 'kysely';
import { DuplicateError, type ActivityEntry, type Condition, type ListQuery, type OutboxEvent, type RecordStore, type Row } from '../types.ts';
import { COUNTED_CASCADES, COUNTED_TABLES, CounterChange } from '../analytics-rule.ts';
import { appendActivity } from './activity.ts';
import { applyCounterChange, rebuildCounters } from './analytics.ts';
import { appendEvents } from './outbox.ts';
import type { Database } from './schema.ts';
import { isUniqueViolation } from './unique-violation.ts';
import { ftsPhrase, MIN_SEARCH_LENGTH, sqliteSearchTable } from './search-indexes.ts';

/* Table and column names come from the area declarations, never from requests. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Eb = ExpressionBuilder<any, any>;

function conditions(eb: Eb, where: Condition[]): Expression<SqlBool>[] {
  return where.map(([col, op, value]) => (op === 'in' ? eb(col, 'in', value as unknown[]) : eb(col, op, value)));
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The statement of a page of `table` as `q` asks: filtered, searched, after the cursor, one row
 * beyond the limit to tell whether more follow. Exported for the test that reads its query plans.
 */
export function listStatement(db: AnyDb, table: string, q: ListQuery, fts = false) {
  return db
    .selectFrom(table)
    .selectAll()
    .where((eb) => {
      const all = conditions(eb, q.where);
      if (q.search && q.search.text) {
        const pattern = `%${escapeLike(q.search.text.toLowerCase())}%`;
        all.push(eb.or(q.search.columns.map((c) => eb(sql`lower(${sql.ref(c)})`, 'like', sql`${pattern} escape '\\'`))));
        // The FTS5 trigram index (search-indexes.ts) finds the candidates; the LIKE above decides.
        if (fts && q.search.text.length >= MIN_SEARCH_LENGTH) {
          const index = sql.table(sqliteSearchTable(table));
          all.push(sql<SqlBool>`${sql.ref('id')} in (select id from ${index} where ${index} match ${ftsPhrase(q.search.text)})`);
        }
      }
      if (q.after) {
        const [v, id] = q.after;
        // A row-value comparison, (sort, id) > (v, id): both engines read it as the start of an
        // index range on (sort, id), where the same test written with OR scans from the first row.
        all.push(eb(eb.refTuple(q.sort, 'id'), '>', eb.tuple(v, id)));
      }
      return eb.and(all);
    })
    .orderBy(q.sort)
    .orderBy('id')
    .limit(q.limit + 1);
}

/** Rows of this table feed the analytics counters (a delete also minds the rows it takes with it: COUNTED_CASCADES). */
const counted = (table: string) => table in COUNTED_TABLES;
/** The typed view of a transaction, for the helpers written against the schema (outbox, activity, counters). */
const typed = (trx: AnyDb) => trx as unknown as Kysely<Database>;

const getRow = async (db: AnyDb, table: string, id: string) => (await db.selectFrom(table).selectAll().where('id', '=', id).executeTakeFirst()) as Row | undefined;

/**
 * An update whose events, activity entry and counter change are written in
 * its transaction. The row is read before the change under a row lock on
 * PostgreSQL (SQLite has one writer), so of two racing changes each sees the
 * other's result as its "before": a transition (an order becoming paid) is
 * reported once and counted once.
 */
async function updateWithEvents(
  db: AnyDb,
  kind: 'sqlite' | 'postgres',
  table: string,
  id: string,
  patch: Row,
  events: (before: Row, after: Row) => OutboxEvent[],
  activity: ActivityEntry | undefined,
) {
  return db.transaction().execute(async (trx) => {
    const read = trx.selectFrom(table).selectAll().where('id', '=', id);
    const before = (await (kind === 'postgres' ? read.forUpdate() : read).executeTakeFirst()) as Row | undefined;
    if (!before) return undefined;
    await trx.updateTable(table).set(patch).where('id', '=', id).execute();
    const after = (await getRow(trx, table, id))!;
    await appendEvents(typed(trx), events(before, after));
    if (activity) await appendActivity(typed(trx), activity);
    await applyCounterChange(typed(trx), new CounterChange().row(table, before, after));
    return after;
  });
}

export function kyselyRecordStore(db: AnyDb, kind: 'sqlite' | 'postgres' = 'sqlite'): RecordStore {
  // Whether a table's FTS5 index exists (SQLite), looked up once: migrating makes it before a server serves.
  const searchIndexes = new Map<string, Promise<boolean>>();
  const hasSearchIndex = (table: string) => {
    let known = searchIndexes.get(table);
    if (!known) {
      known = sql<{ n: number }>`select count(*) as n from sqlite_master where name = ${sqliteSearchTable(table)}`.execute(db).then(
        (r) => Number(r.rows[0]?.n) > 0,
        (err: unknown) => {
          searchIndexes.delete(table);
          throw err;
        },
      );
      searchIndexes.set(table, known);
    }
    return known;
  };
  return {
    async list(table, q) {
      const fts = kind === 'sqlite' && q.search !== undefined && (await hasSearchIndex(table));
      const rows = (await listStatement(db, table, q, fts).execute()) as Row[];
      const more = rows.length > q.limit;
      const page = more ? rows.slice(0, q.limit) : rows;
      const last = page[page.length - 1];
      return { rows: page, ...(more && last ? { next: [last[q.sort], String(last.id)] as [unknown, string] } : {}) };
    },
    async get(table, id) {
      return (await db.selectFrom(table).selectAll().where('id', '=', id).executeTakeFirst()) as Row | undefined;
    },
    async insert(table, row, events = [], activity) {
      try {
        if (events.length === 0 && !activity && !counted(table)) await db.insertInto(table).values(row).execute();
        else {
          await db.transaction().execute(async (trx) => {
            await trx.insertInto(table).values(row).execute();
            await appendEvents(typed(trx), events);
            if (activity) await appendActivity(typed(trx), activity);
            await applyCounterChange(typed(trx), new CounterChange().row(table, undefined, row));
          });
        }
      } catch (err) {
        if (isUniqueViolation(err)) throw new DuplicateError(`a ${table} record with the same unique value exists`);
        throw err;
      }
    },
    async insertMany(table, rows) {
      if (rows.length === 0) return;
      // Far under either engine's limit on bound values per statement (SQLite 32,766, PostgreSQL 65,535).
      const perStatement = Math.max(1, Math.floor(30_000 / Object.keys(rows[0]!).length));
      try {
        await db.transaction().execute(async (trx) => {
          for (let i = 0; i < rows.length; i += perStatement)
            await trx
              .insertInto(table)
              .values(rows.slice(i, i + perStatement))
              .execute();
          const change = new CounterChange();
          for (const row of rows) change.row(table, undefined, row);
          await applyCounterChange(typed(trx), change);
        });
      } catch (err) {
        if (isUniqueViolation(err)) throw new DuplicateError(`a ${table} record with the same unique value exists`);
        throw err;
      }
    },
    async update(table, id, patch, events, activity) {
      try {
        if (events || activity || counted(table)) return await updateWithEvents(db, kind, table, id, patch, events ?? (() => []), activity);
        const r = await db.updateTable(table).set(patch).where('id', '=', id).executeTakeFirst();
        if (Number(r.numUpdatedRows) === 0) return undefined;
      } catch (err) {
        if (isUniqueViolation(err)) throw new DuplicateError(`a ${table} record with the same unique value exists`);
        throw err;
      }
      return getRow(db, table, id);
    },
    async delete(table, id, activity) {
      const work = async (trx: AnyDb) => {
        const change = new CounterChange();
        // Rows the database deletes with this one (ON DELETE CASCADE) are read first, to be uncounted,
        // under the row's lock on PostgreSQL: a completion being added meanwhile waits on it (the
        // progress store locks the enrollment, and the foreign key check the lesson).
        const cascades = COUNTED_CASCADES[table] ?? [];
        if (kind === 'postgres' && cascades.length > 0) await trx.selectFrom(table).select('id').where('id', '=', id).forUpdate().execute();
        for (const [child, column] of cascades) {
          for (const row of (await trx.selectFrom(child).selectAll().where(column, '=', id).execute()) as Row[]) change.row(child, row, undefined);
        }
        const gone = (await trx.deleteFrom(table).where('id', '=', id).returningAll().execute()) as Row[];
        if (gone.length === 0) return false;
        change.row(table, gone[0], undefined);
        if (activity) await appendActivity(typed(trx), activity);
        await applyCounterChange(typed(trx), change);
        return true;
      };
      if (!activity && !counted(table) && !(table in COUNTED_CASCADES)) return work(db);
      return db.transaction().execute(work);
    },
    async count(table, where) {
      const r = await db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .where((eb) => eb.and(conditions(eb, where)))
        .executeTakeFirst();
      return Number((r as { n?: unknown } | undefined)?.n ?? 0);
    },
    async select(table, columns, where) {
      return (await db
        .selectFrom(table)
        .select(columns)
        .where((eb) => eb.and(conditions(eb, where)))
        .execute()) as Row[];
    },
    async clear(tables) {
      await db.transaction().execute(async (trx) => {
        for (const t of tables) await trx.deleteFrom(t).execute();
        if (tables.some((t) => counted(t) || t in COUNTED_CASCADES)) await rebuildCounters(typed(trx), kind);
      });
    },
  };
}
