import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';
import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult } from 'kysely';
import { sqliteDialect } from './dialect.ts';

/** How often the thread copies committed WAL pages into the database file. */
const CHECKPOINT_EVERY_MS = 250;
/** SQLite's own default, restored when the thread is not running. */
const AUTOCHECKPOINT_PAGES = 1000;
/** The WAL's bound: past it the thread restarts the log, and a restarted log is cut back to it. */
const WAL_LIMIT_BYTES = 64 * 1024 * 1024;
/** Rows of each index SQLite's ANALYZE reads (its documentation suggests a few hundred to a few thousand). */
export const SQLITE_ANALYSIS_LIMIT = 1000;
/** How often the thread takes the planner's statistics again for tables that changed much. */
const OPTIMIZE_EVERY_MS = 3_600_000;

export interface MaintenanceOptions {
  /** Milliseconds between checkpoints (default 250). */
  checkpointEveryMs?: number;
  /** Bytes of WAL above which the thread restarts the log (default 64 MiB). */
  walLimitBytes?: number;
}

/**
 * The thread's module, found through the package's own name (package.json
 * "exports"), so the sources and the production bundle, wherever its chunks
 * sit, start the same file.
 */
const WORKER_MODULE = 'lyceum/maintenance-worker';

interface Answer {
  id: number;
  rows: unknown[];
  changes?: number;
  error?: { message: string; code?: string };
}

export interface MaintenanceThread {
  /**
   * A Kysely dialect whose statements run on the thread once it is started
   * (single statements; no transactions), on the server's connection before.
   */
  dialect: Dialect;
  /** Starts the thread; a second call does nothing. */
  start(): void;
  stop(): void;
}

/**
 * Moves SQLite's housekeeping off the event loop, where better-sqlite3 runs
 * every statement synchronously:
 * - WAL checkpoints. SQLite checkpoints inside the commit that crosses
 *   wal_autocheckpoint: page copies and an fsync stalled every request for
 *   tens of milliseconds under write load. The server's connection stops
 *   checkpointing once the thread is up, and resumes if the thread fails.
 *   Under writes that never pause, a checkpoint on another connection never
 *   catches up with the log, and SQLite only starts the log over once one
 *   has: under a steady stream of registrations the WAL grows without
 *   bound. Past WAL_LIMIT_BYTES the thread restarts it (writers wait for
 *   the frames of one round).
 * - The background purge. Deleting a batch of expired rows touches pages all
 *   over the table and its indexes, which is slow on a large store; run on
 *   the event loop, each batch was a stall for every request in flight. On
 *   the thread, reads never wait (WAL readers do not block on
 *   the writer) and writers wait at most one bounded batch. If the thread
 *   fails, its statements run on the server's connection instead.
 *
 * The thread is started when the server listens (src/server.ts), not when the
 * store opens: a new thread boots a V8 isolate and loads the SQLite driver
 * again, CPU that a busy host would take from the server's own start (its
 * first answer came later), and the CLI's commands, which open the store
 * too, need no thread at all. Until then the server's connection
 * checkpoints as SQLite does by default.
 */
export function maintenanceThread(sqlite: SQLite.Database, file: string, options: MaintenanceOptions = {}): MaintenanceThread {
  const walLimit = options.walLimitBytes ?? WAL_LIMIT_BYTES;
  // The file of a restarted log is cut back to the limit by the commit that restarts it (it is
  // otherwise kept at its largest size, to be written over).
  sqlite.pragma(`journal_size_limit = ${walLimit}`);
  let worker: Worker | undefined;
  let stopped = false;
  let running = false;
  let nextId = 0;
  const pending = new Map<number, { resolve: (a: Answer) => void; reject: (e: Error) => void }>();
  const fallBack = () => {
    running = false;
    for (const p of pending.values()) p.reject(new Error('the maintenance thread stopped'));
    pending.clear();
    if (!stopped && sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
  };
  const start = () => {
    if (worker || stopped) return;
    const thread = new Worker(createRequire(import.meta.url).resolve(WORKER_MODULE), {
      execArgv: [],
      workerData: { file, every: options.checkpointEveryMs ?? CHECKPOINT_EVERY_MS, walLimit, analysisLimit: SQLITE_ANALYSIS_LIMIT, optimizeEvery: OPTIMIZE_EVERY_MS },
    });
    thread.on('message', (m: 'ready' | Answer) => {
      if (m === 'ready') {
        if (!stopped && sqlite.open) sqlite.pragma('wal_autocheckpoint = 0');
        return;
      }
      const p = pending.get(m.id);
      pending.delete(m.id);
      p?.resolve(m);
    });
    thread.on('error', fallBack);
    thread.on('exit', fallBack);
    // After the listeners, which would hold the process open otherwise.
    thread.unref();
    worker = thread;
    running = true;
  };

  const onThread = (thread: Worker, query: CompiledQuery) =>
    new Promise<Answer>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      thread.postMessage({ id, sql: query.sql, parameters: query.parameters });
    });
  const onServerConnection = (query: CompiledQuery): Answer => {
    const stmt = sqlite.prepare(query.sql);
    if (stmt.reader) return { id: -1, rows: stmt.all(...query.parameters) };
    return { id: -1, rows: [], changes: stmt.run(...query.parameters).changes };
  };
  const connection: DatabaseConnection = {
    async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
      const answer = worker && running && !stopped ? await onThread(worker, query) : onServerConnection(query);
      if (answer.error) throw Object.assign(new Error(answer.error.message), { code: answer.error.code });
      return { rows: answer.rows as R[], ...(answer.changes === undefined ? {} : { numAffectedRows: BigInt(answer.changes) }) };
    },
    streamQuery() {
      throw new Error('the maintenance connection does not stream');
    },
  };
  const noTransactions = async () => {
    throw new Error('the maintenance connection runs single statements');
  };
  const driver: Driver = {
    async init() {},
    async acquireConnection() {
      return connection;
    },
    beginTransaction: noTransactions,
    commitTransaction: noTransactions,
    rollbackTransaction: noTransactions,
    async releaseConnection() {},
    async destroy() {},
  };
  return {
    dialect: sqliteDialect(() => driver),
    start,
    stop() {
      stopped = true;
      worker?.postMessage('close');
    },
  };
}
