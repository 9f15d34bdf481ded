import type SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { registerDirectReads } from './direct-reads.ts';
import type { Database } from './schema.ts';

/**
 * Statements kept prepared; beyond this the oldest is dropped (dynamic queries vary). Oldest, not
 * least recently used: reordering the cache on every hit cost more than preparing a statement
 * again now and then.
 */
const STATEMENT_CACHE_SIZE = 500;

/**
 * better-sqlite3 with its prepared statements reused: Kysely prepares every
 * query it runs, and preparing costs as much as running a primary-key
 * lookup. Safe because better-sqlite3 runs each statement to completion
 * synchronously (nothing here streams with iterate()).
 */
function withStatementCache(sqlite: SQLite.Database, onClose: () => void): { close(): void; prepare(sql: string): SQLite.Statement } {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => {
      onClose();
      sqlite.close();
    },
    prepare(sql: string) {
      let stmt = cache.get(sql);
      if (!stmt) {
        stmt = sqlite.prepare(sql);
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
        cache.set(sql, stmt);
      }
      return stmt;
    },
  };
}

/**
 * Kysely on one better-sqlite3 connection, its statements kept prepared and
 * its compiled reads answered directly (src/store/kysely/direct-reads.ts)
 * while no transaction is open. `onClose` runs before the connection closes.
 */
export function sqliteKysely(sqlite: SQLite.Database, onClose: () => void = () => {}): Kysely<Database> {
  const statements = withStatementCache(sqlite, onClose);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: statements }) });
  // A Kysely transaction holds this one connection across awaits: a read from outside it goes
  // through the executor, which waits for the connection's lock, so it never sees uncommitted rows.
  const reader = (sql: string) => (sqlite.inTransaction ? undefined : statements.prepare(sql));
  registerDirectReads(db, {
    rows: ({ sql, parameters }) => {
      const stmt = reader(sql);
      return stmt?.reader ? stmt.all(parameters) : undefined;
    },
    first: ({ sql, parameters }) => {
      const stmt = reader(sql);
      return stmt?.reader ? (stmt.get(parameters) ?? null) : undefined;
    },
  });
  return db;
}
