import SQLite from 'better-sqlite3';
import { Kysely, Migrator, sql } from 'kysely';
import { databaseLimits, type Config, type DatabaseLimits } from '../../config/index.ts';
import { migrationProvider } from '../migrations/index.ts';
import type { Store } from '../types.ts';
import { kyselyActivityStore } from './activity.ts';
import { kyselyAnalyticsStore } from './analytics.ts';
import { ensureIndexes } from './derived-indexes.ts';
import { kyselyClientStore } from './clients.ts';
import { kyselyCodeStore } from './codes.ts';
import { kyselyDeviceAuthorizationStore } from './device-authorizations.ts';
import { kyselyGrantStore } from './grants.ts';
import { kyselyIdempotencyKeyStore } from './idempotency-keys.ts';
import { executorLookups, type KeyLookup } from './key-lookup.ts';
import { maintenanceThread, SQLITE_ANALYSIS_LIMIT } from '../sqlite/maintenance-thread.ts';
import { translateFault } from './pg-faults.ts';
import { BoundedPostgresDialect } from './postgres-pool.ts';
import type { Database } from './schema.ts';
import { kyselyPasswordFailureStore } from './password-failures.ts';
import { kyselyProgressStore } from './progress.ts';
import { kyselyRecordStore } from './records.ts';
import { kyselySessionStore } from './sessions.ts';
import { kyselyFileStore, kyselySettingsStore } from './settings-files.ts';
import { kyselySigningKeyStore } from './signing-keys.ts';
import { sqliteKysely } from '../sqlite/sqlite-kysely.ts';
import { kyselyTokenStore } from './tokens.ts';
import { kyselyUserStore } from './users.ts';
import { kyselyWebhookStore } from './webhooks.ts';
import { createPrivateFile } from '../../util/private-files.ts';

const MIGRATE_ATTEMPTS = 6;

/** The server's database, its key lookups, and where the background purge runs its statements. */
interface Opened {
  db: Kysely<Database>;
  lookups: KeyLookup;
  maintenance: Kysely<Database>;
  /** Starts the background housekeeping (SQLite's maintenance thread); nothing to start on PostgreSQL. */
  startMaintenance(): void;
}

function openSqlite(file: string, busyTimeoutMs: number | undefined): Opened {
  // An empty file is a new database to SQLite: created here, it is owner-only before SQLite
  // writes a byte, and SQLite gives the -wal and -shm files the database file's mode.
  if (file !== ':memory:') createPrivateFile(file, '');
  let sqlite: SQLite.Database;
  try {
    sqlite = new SQLite(file);
  } catch (err) {
    // The native driver is compiled per Node.js ABI: after switching Node versions it must be rebuilt.
    if ((err as { code?: string }).code === 'ERR_DLOPEN_FAILED') {
      throw new Error(`better-sqlite3 was built for another Node.js version than ${process.version}; run: npm rebuild better-sqlite3`, { cause: err });
    }
    throw err;
  }
  // WAL lets the CLI and the server share the file, and reads go on while another process writes.
  // A writer is waited for by sqliteKysely, off the event loop (sqlite-busy-driver.ts).
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  // In WAL mode NORMAL is durable across a process crash (only power loss can drop the last commits).
  sqlite.pragma('synchronous = NORMAL');
  const thread = file === ':memory:' ? undefined : maintenanceThread(sqlite, file);
  const { db, lookups } = sqliteKysely(sqlite, thread?.stop ?? (() => {}), busyTimeoutMs);
  return { db, lookups, maintenance: thread ? new Kysely<Database>({ dialect: thread.dialect }) : db, startMaintenance: () => thread?.start() };
}

/** PostgreSQL runs statements in its own processes: the event loop only awaits them. */
function openPostgres(url: string, limits: DatabaseLimits): Opened {
  const db = new Kysely<Database>({ dialect: new BoundedPostgresDialect(url, limits) });
  return { db, lookups: executorLookups(db), maintenance: db, startMaintenance: () => {} };
}

/**
 * Where migrations run: on PostgreSQL a connection of their own without the
 * statement and lock bounds, since creating an index on a large table may
 * take longer than any request should, and waiting for a lock is what a
 * migration beside running instances must do.
 */
function migrationDatabase(database: Config['database'], db: Kysely<Database>, limits: DatabaseLimits): { db: Kysely<Database>; done(): Promise<void> } {
  if (database.kind !== 'postgres') return { db, done: async () => {} };
  const own = new Kysely<Database>({ dialect: new BoundedPostgresDialect(database.url, { ...limits, poolSize: 1, statementTimeoutMs: 0, lockTimeoutMs: 0 }) });
  return { db: own, done: () => own.destroy() };
}

/** The store on `database`; `limits` bound PostgreSQL's waits (the DB_* settings, their defaults unless given). */
export function openStore(database: Config['database'], limits: DatabaseLimits = databaseLimits()): Store {
  const { db, lookups, maintenance, startMaintenance } = database.kind === 'sqlite' ? openSqlite(database.file, limits.sqliteBusyTimeoutMs) : openPostgres(database.url, limits);
  return {
    kind: database.kind,
    // SQLite's one bound, a write lock held by another process, already raises the 503 (sqlite-busy-driver.ts).
    fault: database.kind === 'postgres' ? translateFault : (err) => err,
    startMaintenance,
    users: kyselyUserStore(db, lookups),
    clients: kyselyClientStore(db, lookups, database.kind, maintenance),
    codes: kyselyCodeStore(db, maintenance),
    deviceAuthorizations: kyselyDeviceAuthorizationStore(db, maintenance),
    tokens: kyselyTokenStore(db, lookups, database.kind, maintenance),
    sessions: kyselySessionStore(db, maintenance),
    passwordFailures: kyselyPasswordFailureStore(db, maintenance),
    grants: kyselyGrantStore(db),
    signingKeys: kyselySigningKeyStore(db),
    records: kyselyRecordStore(db, database.kind),
    progress: kyselyProgressStore(db),
    webhooks: kyselyWebhookStore(db, database.kind, maintenance),
    settings: kyselySettingsStore(db),
    files: kyselyFileStore(db, database.kind),
    idempotencyKeys: kyselyIdempotencyKeyStore(db, maintenance),
    activity: kyselyActivityStore(db, maintenance),
    analytics: kyselyAnalyticsStore(db, database.kind),
    async migrate(indexes = []) {
      const target = migrationDatabase(database, db, limits);
      try {
        await migrate(database, target.db);
        const { created } = await ensureIndexes(target.db, database.kind, indexes);
        if (database.kind === 'sqlite') await refreshSqliteStatistics(target.db, created.length > 0);
      } finally {
        await target.done();
      }
    },
    async optimize() {
      // On PostgreSQL a connection without the statement bound: a vacuum may take longer than a request.
      const target = migrationDatabase(database, db, limits);
      try {
        await analyze(target.db, database.kind);
      } finally {
        await target.done();
      }
    },
    async ping() {
      await sql`select 1`.execute(db);
    },
    async close() {
      if (maintenance !== db) await maintenance.destroy();
      await db.destroy();
    },
  };
}

/**
 * The planner's statistics, taken again. On SQLite each index is sampled
 * (analysis_limit, about 1,000 rows), so this takes milliseconds on any
 * size of database; PostgreSQL samples on its own terms, and vacuums.
 */
async function analyze(db: Kysely<Database>, kind: 'sqlite' | 'postgres'): Promise<void> {
  if (kind === 'sqlite') {
    await sql`pragma analysis_limit = ${sql.lit(SQLITE_ANALYSIS_LIMIT)}`.execute(db);
    await sql`analyze`.execute(db);
    return;
  }
  // VACUUM as well: after a bulk load it marks the new rows all-visible, so index-only scans
  // (counts, list pages) need not visit the table.
  await sql`vacuum (analyze)`.execute(db);
}

/**
 * SQLite has no planner statistics until ANALYZE runs, and without them it
 * may pick a poor index. A full (sampled) ANALYZE takes about 150 ms on a
 * school of 100,000 students, so it runs only when there are none yet or new
 * indexes were made; otherwise PRAGMA optimize takes them again for the
 * tables that changed much, usually none, in a millisecond.
 */
async function refreshSqliteStatistics(db: Kysely<Database>, indexesMade: boolean): Promise<void> {
  const stats = await sql<{ n: number }>`select count(*) as n from sqlite_master where name = 'sqlite_stat1'`.execute(db);
  if (indexesMade || Number(stats.rows[0]?.n) === 0) return analyze(db, 'sqlite');
  await sql`pragma analysis_limit = ${sql.lit(SQLITE_ANALYSIS_LIMIT)}`.execute(db);
  await sql`pragma optimize`.execute(db);
}

async function migrate(database: Config['database'], db: Kysely<Database>): Promise<void> {
  // On PostgreSQL the migration tables are pinned to the schema the connection works in
  // (search_path), so databases with several Lyceum schemas keep their histories apart.
  const schema = database.kind === 'postgres' ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema : undefined;
  const migrator = new Migrator({
    db,
    provider: migrationProvider,
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
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
}
