import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from './schema.ts';

/**
 * Runs an `insert ... select ... where <the table still has room>` so that
 * racing callers on any number of instances never pass the bound together,
 * and says whether the row went in.
 *
 * - PostgreSQL: under READ COMMITTED two such statements would both see the
 *   room, so the table is locked first (SHARE ROW EXCLUSIVE queues other
 *   writers of the table, never its readers).
 * - SQLite: the statement alone, in autocommit, holds the write lock while
 *   it reads. A transaction would hold that lock across awaits, and another
 *   connection of the same process waiting on busy_timeout would block the
 *   event loop that would commit it.
 */
export async function insertIfRoom(db: Kysely<Database>, kind: 'sqlite' | 'postgres', table: 'clients' | 'files', statement: RawBuilder<unknown>): Promise<boolean> {
  const r =
    kind === 'postgres'
      ? await db.transaction().execute(async (trx) => {
          await sql`lock table ${sql.table(table)} in share row exclusive mode`.execute(trx);
          return statement.execute(trx);
        })
      : await statement.execute(db);
  return Number(r.numAffectedRows ?? 0) > 0;
}
