import type { Compilable, Kysely } from 'kysely';
import type { Database } from './schema.ts';

/**
 * A single-parameter SELECT compiled once, for lookups on every request's
 * path (a token by hash, a user or client by id). Building and compiling a
 * Kysely query costs more than SQLite spends running a primary-key lookup;
 * the compiled SQL and the driver's prepared statement are reused instead.
 * `query` is built with a placeholder value that each call replaces.
 */
export function compiledLookup<Row>(db: Kysely<Database>, query: Compilable<Row>): (value: string) => Promise<Row | undefined> {
  const compiled = query.compile();
  return async (value) => {
    const { rows } = await db.executeQuery<Row>({ ...compiled, parameters: [value] });
    return rows[0];
  };
}
