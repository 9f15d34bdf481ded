import type { Compilable, CompiledQuery, Kysely } from 'kysely';

/**
 * Answers a compiled read at once: its first row, null when there is none,
 * or undefined when the read must go through Kysely's executor instead.
 */
export type DirectRead = (sql: string, parameters: readonly unknown[]) => unknown;

type AnyKysely = Kysely<any>;

const registered = new WeakMap<AnyKysely, DirectRead>();

/**
 * On SQLite every statement runs synchronously in this process, yet each
 * query through Kysely's executor waits for the connection's lock and
 * passes through several promise steps. A database registered here answers
 * its key lookups directly (the SQL is still built and compiled by Kysely)
 * whenever that is what the executor would do anyway.
 */
export function registerDirectReads(db: AnyKysely, read: DirectRead): void {
  registered.set(db, read);
}

/**
 * A lookup on every request's path (a token by hash, a user or client by
 * id): the first row of `build`'s query for the call's values, or undefined.
 * The query is built and compiled on the first call only; later calls run
 * the same SQL with their own values, directly where the database is
 * registered. So `build` must bind each value once, in order, as the
 * query's only parameters: checked on that first call.
 */
export function keyLookup<Row, Values extends unknown[]>(db: AnyKysely, build: (...values: Values) => Compilable<Row>): (...values: Values) => Promise<Row | undefined> {
  let compiled: CompiledQuery | undefined;
  return async (...values) => {
    compiled ??= compileFor(build(...values).compile(), values);
    const direct = registered.get(db)?.(compiled.sql, values);
    if (direct !== undefined) return (direct ?? undefined) as Row | undefined;
    return (await db.executeQuery<Row>({ ...compiled, parameters: values })).rows[0];
  };
}

function compileFor(query: CompiledQuery, values: readonly unknown[]): CompiledQuery {
  const same = query.parameters.length === values.length && query.parameters.every((p, i) => p === values[i]);
  if (!same) throw new Error(`a key lookup's parameters must be its values in order: ${query.sql}`);
  return query;
}
