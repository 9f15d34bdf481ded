import type SQLite from 'better-sqlite3';
import { CompiledQuery, type DatabaseConnection, type Dialect, type Driver, type QueryResult } from 'kysely';
import { sqliteDialect } from './dialect.ts';
import { storeUnavailable } from '../unavailable.ts';

/**
 * SQLite's own busy wait, in ms. better-sqlite3 runs every statement on the
 * event loop, so SQLite's busy handler (which sleeps) stalls every request
 * while it waits: it is kept to a few ms and the rest of the wait happens
 * here, between attempts, with the event loop free.
 */
export const SQLITE_BUSY_SPIN_MS = 2;
/** The first pause between attempts on a locked database; it doubles up to the cap. */
const FIRST_PAUSE_MS = 2;
const MAX_PAUSE_MS = 40;

/** SQLITE_BUSY and its extended codes (SQLITE_BUSY_SNAPSHOT, SQLITE_BUSY_RECOVERY, ...). */
export const isSqliteBusy = (err: unknown): boolean => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
};

/**
 * One holder of the connection at a time: Kysely holds it for a statement, or
 * a whole transaction. Waiters are served in arrival order and the connection
 * passes straight to the next one, so a release wakes one waiter, not all.
 */
class Mutex {
  private held = false;
  private readonly waiting: (() => void)[] = [];

  lock(): Promise<void> {
    if (!this.held) {
      this.held = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  unlock(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.held = false;
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The one better-sqlite3 connection, as Kysely sees it. A statement that
 * finds the database locked by another process (the CLI, a backup, a
 * `sqlite3` shell) is tried again after a pause, for at most `boundMs`; the
 * connection is let go during each pause, so reads (WAL) and other requests
 * go on meanwhile. Only statements outside a transaction are retried: one
 * that failed did nothing. Transactions begin IMMEDIATE, so they wait for
 * the write lock at BEGIN, where retrying is safe, and never meet a locked
 * database halfway; should a statement inside one still find it locked, the
 * error ends the transaction (Kysely rolls it back) and the caller is told
 * the store is unavailable.
 */
class BusyRetryingConnection implements DatabaseConnection {
  constructor(
    private readonly sqlite: SQLite.Database,
    private readonly prepare: (sql: string) => SQLite.Statement,
    private readonly mutex: Mutex,
    private readonly boundMs: number,
  ) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.retryWhileBusy(() => this.run<R>(query));
  }

  streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    // Nothing in Lyceum streams; iterate() would hold the connection across awaits.
    throw new Error('streaming is not supported on this SQLite connection');
  }

  /** Runs `attempt` until it does not find the database locked, or the bound is reached. */
  async retryWhileBusy<T>(attempt: () => T): Promise<T> {
    const started = performance.now();
    let wait = FIRST_PAUSE_MS;
    for (;;) {
      try {
        return attempt();
      } catch (err) {
        if (!isSqliteBusy(err)) throw err;
        const waited = performance.now() - started;
        if (this.sqlite.inTransaction || waited >= this.boundMs) {
          throw storeUnavailable(err, `the SQLite database stayed locked by another process for ${Math.round(waited)} ms`);
        }
        // Let other requests use the connection while this one waits (no transaction is open).
        this.mutex.unlock();
        try {
          await pause(Math.min(wait, Math.max(1, this.boundMs - waited)));
        } finally {
          await this.mutex.lock();
        }
        wait = Math.min(wait * 2, MAX_PAUSE_MS);
      }
    }
  }

  private run<R>(query: CompiledQuery): QueryResult<R> {
    const stmt = this.prepare(query.sql);
    const parameters = query.parameters as unknown[];
    if (stmt.reader) return { rows: stmt.all(parameters) as R[] };
    const { changes, lastInsertRowid } = stmt.run(parameters);
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  }
}

class BusyRetryingDriver implements Driver {
  private readonly mutex = new Mutex();
  private readonly connection: BusyRetryingConnection;

  constructor(
    private readonly sqlite: SQLite.Database,
    prepare: (sql: string) => SQLite.Statement,
    boundMs: number,
    private readonly onClose: () => void,
  ) {
    this.connection = new BusyRetryingConnection(sqlite, prepare, this.mutex, boundMs);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.mutex.lock();
    return this.connection;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    // IMMEDIATE takes the write lock now: the wait for another process's writer happens here, where
    // nothing is done yet and retrying is safe, not at the transaction's first write.
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${quoteName(name)}`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to ${quoteName(name)}`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release ${quoteName(name)}`));
  }

  async releaseConnection(): Promise<void> {
    this.mutex.unlock();
  }

  async destroy(): Promise<void> {
    this.onClose();
    this.sqlite.close();
  }
}

const quoteName = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Kysely's SQLite dialect on the busy-retrying driver above. */
export function busyRetryingSqliteDialect(sqlite: SQLite.Database, prepare: (sql: string) => SQLite.Statement, boundMs: number, onClose: () => void): Dialect {
  return sqliteDialect(() => new BusyRetryingDriver(sqlite, prepare, boundMs, onClose));
}
