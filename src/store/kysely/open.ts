import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Worker } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, sql, SqliteDialect, type SqliteDatabase } from 'kysely';
import { CurrentSchemaPostgresDialect } from './current-schema-dialect.ts';
import type pg from 'pg';
import type { Config } from '../../config/index.ts';
import { migrationProvider } from '../migrations/index.ts';
import type { Store } from '../types.ts';
import { kyselyClientStore } from './clients.ts';
import { kyselyCodeStore } from './codes.ts';
import { kyselyGrantStore } from './grants.ts';
import type { Database } from './schema.ts';
import { kyselyRecordStore } from './records.ts';
import { kyselySessionStore } from './sessions.ts';
import { kyselyFileStore, kyselySettingsStore } from './settings-files.ts';
import { kyselySigningKeyStore } from './signing-keys.ts';
import { kyselyTokenStore } from './tokens.ts';
import { kyselyUserStore } from './users.ts';

const INT8_OID = 20;
const MIGRATE_ATTEMPTS = 6;

/** pg returns BIGINT as a string; every Lyceum bigint is an epoch-ms time, safe as a number. */
const pgTypes = (types: typeof pg.types) => ({
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? (v: string) => Number(v) : types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
});

/** Statements kept prepared; beyond this the least recently used is finalized (dynamic queries vary). */
const STATEMENT_CACHE_SIZE = 500;

/**
 * better-sqlite3 with its prepared statements reused: Kysely prepares every
 * query it runs, and preparing costs as much as running a primary-key
 * lookup. Safe because better-sqlite3 runs each statement to completion
 * synchronously (nothing here streams with iterate()).
 */
function withStatementCache(sqlite: SQLite.Database, onClose: () => void): SqliteDatabase {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => {
      onClose();
      sqlite.close();
    },
    prepare(sql: string) {
      let stmt = cache.get(sql);
      if (stmt) {
        cache.delete(sql);
      } else {
        stmt = sqlite.prepare(sql);
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      }
      cache.set(sql, stmt);
      return stmt;
    },
  };
}

/** How often the checkpointer copies committed WAL pages into the database file. */
const CHECKPOINT_EVERY_MS = 250;
/** SQLite's own default, restored when the checkpointer is not running. */
const AUTOCHECKPOINT_PAGES = 1000;

/** The checkpointer thread: a connection of its own that runs PASSIVE checkpoints on a timer. */
const CHECKPOINTER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('synchronous = NORMAL');
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // Busy or interrupted: the next round copies what is left.
  }
}, workerData.every);
parentPort.once('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
parentPort.postMessage('ready');
`;

/**
 * Moves WAL checkpoints off the event loop. SQLite checkpoints inside the
 * commit that crosses wal_autocheckpoint, and better-sqlite3 runs that
 * commit on the event loop: a checkpoint (page copies and an fsync) stalled
 * every request for tens of milliseconds under write load, and a purge of
 * many rows hit one every few batches. A worker thread with its own
 * connection checkpoints instead; the server's connection stops doing it
 * once the worker is up, and resumes if the worker fails. Returns the stop
 * function.
 */
export function startCheckpointer(sqlite: SQLite.Database, file: string): () => void {
  const worker = new Worker(CHECKPOINTER, {
    eval: true,
    execArgv: [],
    workerData: { file, driver: createRequire(import.meta.url).resolve('better-sqlite3'), every: CHECKPOINT_EVERY_MS },
  });
  let stopped = false;
  const fallBack = () => {
    if (!stopped && sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
  };
  worker.on('message', (m) => {
    if (m === 'ready' && !stopped && sqlite.open) sqlite.pragma('wal_autocheckpoint = 0');
  });
  worker.on('error', fallBack);
  worker.on('exit', fallBack);
  // After the listeners, which would hold the process open otherwise.
  worker.unref();
  return () => {
    stopped = true;
    worker.postMessage('close');
  };
}

function openSqlite(file: string): Kysely<Database> {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  let sqlite: SQLite.Database;
  try {
    sqlite = new SQLite(file);
  } catch (err) {
    // The native driver is compiled per Node.js ABI: after switching Node versions it must be rebuilt.
    if ((err as { code?: string }).code === 'ERR_DLOPEN_FAILED') {
      throw new Error(`better-sqlite3 was built for another Node.js version than ${process.version}; run: npm rebuild better-sqlite3`);
    }
    throw err;
  }
  // WAL lets the CLI and the server share the file; busy_timeout waits for a writer instead of failing.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  // In WAL mode NORMAL is durable across a process crash (only power loss can drop the last commits).
  sqlite.pragma('synchronous = NORMAL');
  const stopCheckpointer = file === ':memory:' ? () => {} : startCheckpointer(sqlite, file);
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite, stopCheckpointer) }) });
}

/**
 * The pg driver is imported when the first query needs the pool, so a SQLite
 * server never loads it (loading pg cost about 30 ms and 9 MB of every start:
 * its Cloudflare check builds a fetch Response, which loads Node's fetch).
 */
function openPostgres(url: string): Kysely<Database> {
  const pool = async () => {
    const { default: pg } = await import('pg');
    const created = new pg.Pool({ connectionString: url, max: 10, types: pgTypes(pg.types) });
    // An idle connection the server ends (restart, failover, admin command) must not crash the
    // process: pg drops that client from the pool and the next query opens a fresh one.
    created.on('error', () => {});
    return created;
  };
  return new Kysely<Database>({ dialect: new CurrentSchemaPostgresDialect({ pool }) });
}

export function openStore(database: Config['database']): Store {
  const db = database.kind === 'sqlite' ? openSqlite(database.file) : openPostgres(database.url);
  return {
    kind: database.kind,
    users: kyselyUserStore(db),
    clients: kyselyClientStore(db),
    codes: kyselyCodeStore(db),
    tokens: kyselyTokenStore(db),
    sessions: kyselySessionStore(db),
    grants: kyselyGrantStore(db),
    signingKeys: kyselySigningKeyStore(db),
    records: kyselyRecordStore(db),
    settings: kyselySettingsStore(db),
    files: kyselyFileStore(db),
    async migrate() {
      // On PostgreSQL the migration tables are pinned to the schema the connection works in
      // (search_path), so databases with several Lyceum schemas keep their histories apart.
      const schema =
        database.kind === 'postgres'
          ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
          : undefined;
      const migrator = new Migrator({ db, provider: migrationProvider, ...(schema ? { migrationTableSchema: schema } : {}) });
      // Several processes may migrate at once (instances starting together, the CLI beside a server).
      // SQLite has no migration lock and PostgreSQL's introspection can trip over schemas dropped
      // meanwhile; each migration is one transaction, so a failed attempt leaves nothing half done
      // and the next one sees what the winner recorded.
      for (let attempt = 1; ; attempt++) {
        const { error, results } = await migrator.migrateToLatest();
        if (!error) return;
        if (attempt >= MIGRATE_ATTEMPTS) {
          const failed = results?.find((r) => r.status === 'Error')?.migrationName;
          throw new Error(`migration ${failed ?? ''} failed: ${error instanceof Error ? error.message : String(error)}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 25 * 2 ** attempt + Math.random() * 50));
      }
    },
    async close() {
      await db.destroy();
    },
  };
}
