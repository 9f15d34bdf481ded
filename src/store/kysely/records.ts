import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool } from 'kysely';
import { DuplicateError, type Condition, type ListQuery, type RecordStore, type Row } from '../types.ts';
import { compiledShapes } from './compiled-shapes.ts';
import { readRows } from './direct-reads.ts';
import { isUniqueViolation } from './unique-violation.ts';

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
 * The values of a list query in the order listQuery's `value(i)` takes them,
 * and the shape that, with the table, fixes its SQL: which columns and
 * operators filter (and how many values an `in` list holds), which columns
 * are searched, whether it continues after a cursor.
 */
function listShape(table: string, q: ListQuery): { shape: string; values: unknown[] } {
  const values: unknown[] = [];
  const where = q.where.map(([col, op, value]) => {
    if (op !== 'in') {
      values.push(value);
      return [col, op];
    }
    values.push(...(value as unknown[]));
    return [col, op, (value as unknown[]).length];
  });
  const search = q.search?.text ? q.search.columns : null;
  if (search) values.push(`%${escapeLike(q.search!.text.toLowerCase())}%`);
  if (q.after) values.push(q.after[0], q.after[1]);
  values.push(q.limit + 1);
  return { shape: JSON.stringify([table, q.sort, where, search, !!q.after]), values };
}

/** The list query of listShape's shape, its values taken in order through `value`. */
function listQuery(db: AnyDb, table: string, q: ListQuery, value: (i: number) => unknown) {
  let next = 0;
  const take = () => value(next++);
  return db
    .selectFrom(table)
    .selectAll()
    .where((eb) => {
      const all = conditions(
        eb,
        q.where.map(([col, op, v]): Condition => [col, op, op === 'in' ? (v as unknown[]).map(take) : take()]),
      );
      if (q.search && q.search.text) {
        const pattern = take();
        all.push(eb.or(q.search.columns.map((c) => eb(sql`lower(${sql.ref(c)})`, 'like', sql`${pattern} escape '\\'`))));
      }
      if (q.after) {
        const [v, id] = [take(), take()];
        all.push(eb.or([eb(q.sort, '>', v), eb.and([eb(q.sort, '=', v), eb('id', '>', id)])]));
      }
      return eb.and(all);
    })
    .orderBy(q.sort)
    .orderBy('id')
    .limit(take() as number);
}

export function kyselyRecordStore(db: AnyDb): RecordStore {
  // A page of records is read on every catalog and collection request: its SQL is compiled once per shape.
  const compile = compiledShapes();
  return {
    async list(table, q) {
      const { shape, values } = listShape(table, q);
      const rows = await readRows<Row>(db, compile(shape, values, (value) => listQuery(db, table, q, value)));
      const more = rows.length > q.limit;
      const page = more ? rows.slice(0, q.limit) : rows;
      const last = page[page.length - 1];
      return { rows: page, ...(more && last ? { next: [last[q.sort], String(last.id)] as [unknown, string] } : {}) };
    },
    async get(table, id) {
      return (await readRows<Row>(db, compile(JSON.stringify([table]), [id], (value) => db.selectFrom(table).selectAll().where('id', '=', value(0)))))[0];
    },
    async insert(table, row) {
      try {
        await db.insertInto(table).values(row).execute();
      } catch (err) {
        if (isUniqueViolation(err)) throw new DuplicateError(`a ${table} record with the same unique value exists`);
        throw err;
      }
    },
    async update(table, id, patch) {
      try {
        const r = await db.updateTable(table).set(patch).where('id', '=', id).executeTakeFirst();
        if (Number(r.numUpdatedRows) === 0) return undefined;
      } catch (err) {
        if (isUniqueViolation(err)) throw new DuplicateError(`a ${table} record with the same unique value exists`);
        throw err;
      }
      return (await db.selectFrom(table).selectAll().where('id', '=', id).executeTakeFirst()) as Row | undefined;
    },
    async delete(table, id) {
      const r = await db.deleteFrom(table).where('id', '=', id).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
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
      });
    },
  };
}
