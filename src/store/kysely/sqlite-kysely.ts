import type SQLite from 'better-sqlite3';
import { Kysely } from 'kysely';
import { boundedCache } from '../../util/bounded-cache.ts';
import { registerDirectReads } from './direct-reads.ts';
import { SETTINGS } from '../../config/defaults.ts';
import type { Database } from './schema.ts';
import { busyRetryingSqliteDialect, isSqliteBusy, SQLITE_BUSY_SPIN_MS } from './sqlite-busy-driver.ts';

/** Statements kept prepared; beyond this the oldest is dropped (dynamic queries vary). */
const STATEMENT_CACHE_SIZE = 500;

/** SQLITE_BUSY_TIMEOUT_MS's default: the bound when none is given. */
const busySetting = SETTINGS.find((s) => s.name === 'SQLITE_BUSY_TIMEOUT_MS')!;
const DEFAULT_BUSY_BOUND_MS = busySetting.parse(busySetting.default);

/**
 * Kysely on one better-sqlite3 connection, its statements kept prepared and
 * its key lookups answered directly (src/store/kysely/direct-reads.ts)
 * while no transaction is open. Preparing costs as much as running a
 * primary-key lookup; reusing is safe because better-sqlite3 runs each
 * statement to completion synchronously (nothing here streams). A database
 * locked by another process is waited for up to `busyBoundMs` without
 * stalling the event loop (sqlite-busy-driver.ts). `onClose` runs before the
 * connection closes.
 */
export function sqliteKysely(sqlite: SQLite.Database, onClose: () => void = () => {}, busyBoundMs = DEFAULT_BUSY_BOUND_MS): Kysely<Database> {
  // SQLite's own wait sleeps on the event loop: kept to a few ms, the driver waits the rest.
  sqlite.pragma(`busy_timeout = ${SQLITE_BUSY_SPIN_MS}`);
  const prepared = boundedCache<string, SQLite.Statement>(STATEMENT_CACHE_SIZE);
  const prepare = (sql: string) => prepared(sql, (s) => sqlite.prepare(s));
  const db = new Kysely<Database>({ dialect: busyRetryingSqliteDialect(sqlite, prepare, busyBoundMs, onClose) });
  // A Kysely transaction holds this one connection across awaits: a read from outside it goes
  // through the executor, which waits for the connection's lock, so it never sees uncommitted rows.
  registerDirectReads(db, (sql, parameters) => {
    if (sqlite.inTransaction) return undefined;
    const stmt = prepare(sql);
    if (!stmt.reader) return undefined;
    try {
      return stmt.get(parameters) ?? null;
    } catch (err) {
      // A read that finds the database busy (rare under WAL) goes through the executor, which waits.
      if (isSqliteBusy(err)) return undefined;
      throw err;
    }
  });
  return db;
}
