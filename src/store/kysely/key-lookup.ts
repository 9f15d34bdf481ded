import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import type { Database } from './schema.ts';

/**
 * Makes a lookup on every request's path (a token by hash, a user or client
 * by id): the first row of `build`'s query for the call's values, or
 * undefined. The query is built and compiled on the first call only; later
 * calls run the same SQL with their own values. So `build` must bind each
 * value once, in order, as the query's only parameters: checked on that
 * first call.
 */
export type KeyLookup = <Row, Values extends unknown[]>(build: (...values: Values) => Compilable<Row>) => (...values: Values) => Promise<Row | undefined>;

/** Runs a compiled lookup: its first row, or undefined. */
export type RunLookup = (query: CompiledQuery) => Promise<unknown>;

/** Key lookups that run through `run` (Kysely's executor unless a driver answers them itself). */
export function keyLookups(run: RunLookup): KeyLookup {
  return <Row, Values extends unknown[]>(build: (...values: Values) => Compilable<Row>) => {
    let compiled: CompiledQuery | undefined;
    return async (...values: Values) => {
      compiled ??= compiledFor(build(...values).compile(), values);
      return (await run({ ...compiled, parameters: values })) as Row | undefined;
    };
  };
}

/** Lookups through Kysely's executor: what every database but SQLite's runs. */
export const executorLookups = (db: Kysely<Database>): KeyLookup => keyLookups(async (query) => (await db.executeQuery(query)).rows[0]);

function compiledFor(query: CompiledQuery, values: readonly unknown[]): CompiledQuery {
  const same = query.parameters.length === values.length && query.parameters.every((p, i) => p === values[i]);
  if (!same) throw new Error(`a key lookup's parameters must be its values in order: ${query.sql}`);
  return query;
}
