import type { CompiledQuery, Kysely } from 'kysely';
import type { MaybePromise } from '../../util/maybe-promise.ts';

/** Runs compiled reads at once; undefined when a read must go through Kysely's executor instead. */
export interface DirectReads {
  rows(sql: string, parameters: readonly unknown[]): unknown[] | undefined;
  /** The first row, or null when there is none. */
  first(sql: string, parameters: readonly unknown[]): unknown;
}

const registered = new WeakMap<Kysely<any>, DirectReads>();

/**
 * On SQLite every statement runs synchronously in this process, yet each
 * query through Kysely's executor waits for the connection's lock and
 * passes through several promise steps. A database registered here answers
 * its compiled reads directly (the SQL is still built and compiled by
 * Kysely) whenever that is what the executor would do anyway.
 */
export function registerDirectReads(db: Kysely<any>, reads: DirectReads): void {
  registered.set(db, reads);
}

/** The rows of a compiled read on `db`: directly where registered and safe, else through Kysely. */
export async function readRows<Row>(db: Kysely<any>, query: CompiledQuery): Promise<Row[]> {
  const rows = registered.get(db)?.rows(query.sql, query.parameters) as Row[] | undefined;
  return rows ?? (await db.executeQuery<Row>(query)).rows;
}

/**
 * The first row of a compiled read on `db` (a lookup by key), or undefined:
 * at once where answered directly. A failure is a rejected promise either
 * way, as callers of an asynchronous store expect. `parameters` replace the
 * query's own (a query compiled once, run with each call's values).
 */
export function readFirst<Row>(db: Kysely<any>, query: CompiledQuery, parameters: readonly unknown[] = query.parameters): MaybePromise<Row | undefined> {
  let direct: unknown;
  try {
    direct = registered.get(db)?.first(query.sql, parameters);
  } catch (err) {
    return Promise.reject(err);
  }
  if (direct !== undefined) return (direct ?? undefined) as Row | undefined;
  const run = parameters === query.parameters ? query : { ...query, parameters };
  return db.executeQuery<Row>(run).then((result) => result.rows[0]);
}
