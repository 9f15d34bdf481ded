import type { CompiledQuery, Compilable, Insertable, Kysely } from 'kysely';
import { boundedCache } from '../../util/bounded-cache.ts';
import type { MaybePromise } from '../../util/maybe-promise.ts';
import { readFirst } from './direct-reads.ts';
import type { Database } from './schema.ts';

/** Query shapes kept compiled; beyond this the oldest is dropped (filters vary). */
const SHAPE_CACHE_SIZE = 200;

/** The placeholder of the i-th value while a shape is built: no query holds it as a constant. */
const slot = (i: number) => `\u0000slot${i}\u0000`;
const SLOT = /^\u0000slot(\d+)\u0000$/;

/** Where each compiled parameter comes from: the call's i-th value, or a constant of the query. */
type Source = { value: number } | { constant: unknown };

/** A query compiled with placeholders, and where each of its parameters comes from. */
interface CompiledShape {
  query: CompiledQuery;
  sources: Source[];
}

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
  const compiled = boundedCache<string, CompiledShape>(SHAPE_CACHE_SIZE);
  return function compile(shape: string, values: readonly unknown[], build: (value: (i: number) => unknown) => Compilable<unknown>): CompiledQuery {
    return withValues(compiled(shape, () => compileShape(build)), values);
  };
}

/** `build`'s query compiled with placeholders, and where each of its parameters comes from. */
function compileShape(build: (value: (i: number) => unknown) => Compilable<unknown>): CompiledShape {
  const query = build(slot).compile();
  const sources = query.parameters.map((p): Source => {
    const m = typeof p === 'string' ? SLOT.exec(p) : null;
    return m ? { value: Number(m[1]) } : { constant: p };
  });
  return { query, sources };
}

/** The compiled parameters with the call's values in place of the placeholders. */
const parametersFor = (sources: Source[], values: readonly unknown[]) => sources.map((s) => ('value' in s ? values[s.value] : s.constant));

function withValues({ query, sources }: CompiledShape, values: readonly unknown[]): CompiledQuery {
  return { ...query, parameters: parametersFor(sources, values) };
}

/** One query shape compiled once (on first use): the compiled query for each call's values. */
export function compiledOnce(build: (value: (i: number) => unknown) => Compilable<unknown>): (values: readonly unknown[]) => CompiledQuery {
  let compiled: CompiledShape | undefined;
  return (values) => {
    compiled ??= compileShape(build);
    return withValues(compiled, values);
  };
}

/**
 * A lookup on every request's path (a token by hash, a user or client by id,
 * a live session), compiled once: the first row of `build`'s query for the
 * call's values, or undefined.
 */
export function compiledLookup<Row>(
  db: Kysely<Database>,
  build: (value: (i: number) => unknown) => Compilable<Row>,
): (...values: unknown[]) => MaybePromise<Row | undefined> {
  let compiled: CompiledShape | undefined;
  return (...values) => {
    compiled ??= compileShape(build);
    return readFirst<Row>(db, compiled.query, parametersFor(compiled.sources, values));
  };
}

/**
 * An INSERT of rows into `table`, compiled once per set of columns and row
 * count; run on `q` (the database or a transaction). With `ignoreConflictOn`,
 * a row whose value there is taken is skipped. For rows written on every
 * flow (a client, a session, a code, tokens).
 */
export function compiledInsert<T extends keyof Database>(db: Kysely<Database>, table: T, ignoreConflictOn?: string) {
  const compile = compiledShapes();
  // Typed as one untyped table: the columns are the rows' own keys.
  const untyped = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  return async (q: Kysely<Database>, rows: Insertable<Database[T]>[]): Promise<void> => {
    if (rows.length === 0) return;
    const columns = Object.keys(rows[0]!) as (keyof Insertable<Database[T]> & string)[];
    const query = compile(`${columns.join(',')}:${rows.length}`, rows.flatMap((r) => columns.map((c) => r[c])), (value) => {
      const insert = untyped
        .insertInto(table)
        .values(rows.map((_, r) => Object.fromEntries(columns.map((c, i) => [c, value(r * columns.length + i)]))));
      return ignoreConflictOn ? insert.onConflict((oc) => oc.column(ignoreConflictOn).doNothing()) : insert;
    });
    await q.executeQuery(query);
  };
}
