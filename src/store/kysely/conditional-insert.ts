import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
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
 *
 * `andThen` (the activity entry of the insert) runs in the same transaction
 * once the row went in; on SQLite it makes the insert a transaction too, one
 * that awaits nothing but its own two statements.
 */
export async function insertIfRoom(
  db: Kysely<Database>,
  kind: 'sqlite' | 'postgres',
  table: 'files',
  statement: RawBuilder<unknown>,
  andThen?: (trx: Transaction<Database>) => Promise<void>,
): Promise<boolean> {
  if (kind === 'sqlite' && !andThen) return Number((await statement.execute(db)).numAffectedRows ?? 0) > 0;
  return db.transaction().execute(async (trx) => {
    if (kind === 'postgres') await sql`lock table ${sql.table(table)} in share row exclusive mode`.execute(trx);
    const inserted = Number((await statement.execute(trx)).numAffectedRows ?? 0) > 0;
    if (inserted && andThen) await andThen(trx);
    return inserted;
  });
}
