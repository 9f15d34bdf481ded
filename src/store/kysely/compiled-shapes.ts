import type { CompiledQuery, Compilable, Insertable, Kysely } from 'kysely';
import type { Database } from './schema.ts';

/** Query shapes kept compiled; beyond this the least recently used is dropped (filters vary). */
const SHAPE_CACHE_SIZE = 200;

/** The placeholder of the i-th value while a shape is built: no query holds it as a constant. */
const slot = (i: number) => `\u0000slot${i}\u0000`;
const SLOT = /^\u0000slot(\d+)\u0000$/;

/** Where each compiled parameter comes from: the call's i-th value, or a constant of the query. */
type Source = { value: number } | { constant: unknown };

/**
 * Queries compiled once per shape, for reads whose structure repeats while
 * their values change (a page of records: same table, filters, sort and
 * limit position; other values). Building a Kysely query and compiling it
 * to SQL cost about as much as SQLite spends running a page query; here
 * `build` runs once per shape with placeholders in place of the values, and
 * each call only puts its values where the placeholders landed in the
 * compiled parameters. `shape` must name everything `build` varies on
 * besides the values (the same shape always builds the same SQL).
 */
export function compiledShapes() {
  const cache = new Map<string, { query: CompiledQuery; sources: Source[] }>();
  return function compile(shape: string, values: readonly unknown[], build: (value: (i: number) => unknown) => Compilable<unknown>): CompiledQuery {
    let hit = cache.get(shape);
    if (hit) {
      cache.delete(shape);
    } else {
      const query = build(slot).compile();
      const sources = query.parameters.map((p): Source => {
        const m = typeof p === 'string' ? SLOT.exec(p) : null;
        return m ? { value: Number(m[1]) } : { constant: p };
      });
      hit = { query, sources };
      if (cache.size >= SHAPE_CACHE_SIZE) cache.delete(cache.keys().next().value!);
    }
    cache.set(shape, hit);
    const { query, sources } = hit;
    return { ...query, parameters: sources.map((s) => ('value' in s ? values[s.value] : s.constant)) };
  };
}

/**
 * An INSERT of one row into `table`, compiled once per set of columns; run
 * on `q` (the database or a transaction). For rows written on every flow
 * (a client, a session, a code).
 */
export function compiledInsert<T extends keyof Database>(db: Kysely<Database>, table: T) {
  const compile = compiledShapes();
  // Typed as one untyped table: the columns are the row's own keys.
  const untyped = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  return async (q: Kysely<Database>, row: Insertable<Database[T]>): Promise<void> => {
    const columns = Object.keys(row) as (keyof typeof row & string)[];
    const query = compile(
      columns.join(','),
      columns.map((c) => row[c]),
      (value) => untyped.insertInto(table).values(Object.fromEntries(columns.map((c, i) => [c, value(i)]))),
    );
    await q.executeQuery(query);
  };
}
