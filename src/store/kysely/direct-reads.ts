import type { CompiledQuery, Kysely } from 'kysely';

/** Runs compiled reads at once; undefined when a read must go through Kysely's executor instead. */
export interface DirectReads {
  rows(query: CompiledQuery): unknown[] | undefined;
  /** The first row, or null when there is none. */
  first(query: CompiledQuery): unknown;
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
  const rows = registered.get(db)?.rows(query) as Row[] | undefined;
  return rows ?? (await db.executeQuery<Row>(query)).rows;
}

/** The first row of a compiled read on `db` (a lookup by key), or undefined. */
export async function readFirst<Row>(db: Kysely<any>, query: CompiledQuery): Promise<Row | undefined> {
  const direct = registered.get(db)?.first(query);
  if (direct !== undefined) return (direct ?? undefined) as Row | undefined;
  return (await db.executeQuery<Row>(query)).rows[0];
}
