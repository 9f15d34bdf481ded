import type SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { boundedCache } from '../../util/bounded-cache.ts';
import { registerDirectReads } from './direct-reads.ts';
import type { Database } from './schema.ts';

/** Statements kept prepared; beyond this the oldest is dropped (dynamic queries vary). */
const STATEMENT_CACHE_SIZE = 500;

/**
 * better-sqlite3 with its prepared statements reused: Kysely prepares every
 * query it runs, and preparing costs as much as running a primary-key
 * lookup. Safe because better-sqlite3 runs each statement to completion
 * synchronously (nothing here streams with iterate()).
 */
function withStatementCache(sqlite: SQLite.Database, onClose: () => void): { close(): void; prepare(sql: string): SQLite.Statement } {
  const prepared = boundedCache<string, SQLite.Statement>(STATEMENT_CACHE_SIZE);
  const prepare = (sql: string) => sqlite.prepare(sql);
  return {
    close: () => {
      onClose();
      sqlite.close();
    },
    prepare: (sql: string) => prepared(sql, prepare),
  };
}

/**
 * Kysely on one better-sqlite3 connection, its statements kept prepared and
 * its key lookups answered directly (src/store/kysely/direct-reads.ts)
 * while no transaction is open. `onClose` runs before the connection closes.
 */
export function sqliteKysely(sqlite: SQLite.Database, onClose: () => void = () => {}): Kysely<Database> {
  const statements = withStatementCache(sqlite, onClose);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: statements }) });
  // A Kysely transaction holds this one connection across awaits: a read from outside it goes
  // through the executor, which waits for the connection's lock, so it never sees uncommitted rows.
  registerDirectReads(db, (sql, parameters) => {
    if (sqlite.inTransaction) return undefined;
    const stmt = statements.prepare(sql);
    return stmt.reader ? (stmt.get(parameters) ?? null) : undefined;
  });
  return db;
}
