import type SQLite from 'better-sqlite3';
import { Kysely } from 'kysely';
import { boundedCache } from '../../util/bounded-cache.ts';
import { SETTINGS } from '../../config/defaults.ts';
import { keyLookups, type KeyLookup } from '../kysely/key-lookup.ts';
import type { Database } from '../kysely/schema.ts';
import { busyRetryingSqliteDialect, isSqliteBusy, SQLITE_BUSY_SPIN_MS } from './sqlite-busy-driver.ts';

/** Statements kept prepared; beyond this the oldest is dropped (dynamic queries vary). */
const STATEMENT_CACHE_SIZE = 500;

/** SQLITE_BUSY_TIMEOUT_MS's default: the bound when none is given. */
const busySetting = SETTINGS.find((s) => s.name === 'SQLITE_BUSY_TIMEOUT_MS')!;
const DEFAULT_BUSY_BOUND_MS = busySetting.parse(busySetting.default);

/** The server's SQLite database: Kysely on it, and its key lookups. */
export interface SqliteDatabase {
  db: Kysely<Database>;
  lookups: KeyLookup;
}

/**
 * Kysely on one better-sqlite3 connection, its statements kept prepared.
 * Preparing costs as much as running a primary-key lookup; reusing is safe
 * because better-sqlite3 runs each statement to completion synchronously
 * (nothing here streams). A database locked by another process is waited
 * for up to `busyBoundMs` without stalling the event loop
 * (sqlite-busy-driver.ts). `onClose` runs before the connection closes.
 *
 * Its key lookups (the token, user and client behind every bearer request)
 * run straight on the prepared statement while no transaction is open:
 * Kysely's executor waits for the connection's lock and takes several
 * promise steps per query, and `npm run bench:ab` measured that as about a
 * quarter of UserInfo's CPU per request. A Kysely transaction holds the one
 * connection across awaits, so while one is open a lookup goes through the
 * executor, which waits for it: no read ever sees uncommitted rows.
 */
export function sqliteKysely(sqlite: SQLite.Database, onClose: () => void = () => {}, busyBoundMs = DEFAULT_BUSY_BOUND_MS): SqliteDatabase {
  // SQLite's own wait sleeps on the event loop: kept to a few ms, the driver waits the rest.
  sqlite.pragma(`busy_timeout = ${SQLITE_BUSY_SPIN_MS}`);
  const prepared = boundedCache<string, SQLite.Statement>(STATEMENT_CACHE_SIZE);
  const prepare = (sql: string) => prepared(sql, (s) => sqlite.prepare(s));
  const db = new Kysely<Database>({ dialect: busyRetryingSqliteDialect(sqlite, prepare, busyBoundMs, onClose) });
  const lookups = keyLookups(async (query) => {
    if (!sqlite.inTransaction) {
      try {
        return prepare(query.sql).get(query.parameters as unknown[]);
      } catch (err) {
        // A read that finds the database busy (rare under WAL) goes through the executor, which waits.
        if (!isSqliteBusy(err)) throw err;
      }
    }
    return (await db.executeQuery(query)).rows[0];
  });
  return { db, lookups };
}
