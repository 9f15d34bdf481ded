import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, sql, SqliteDialect, type SqliteDatabase } from 'kysely';
import pg from 'pg';
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
const pgTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** Statements kept prepared; beyond this the least recently used is finalized (dynamic queries vary). */
const STATEMENT_CACHE_SIZE = 500;

/**
 * better-sqlite3 with its prepared statements reused: Kysely prepares every
 * query it runs, and preparing costs as much as running a primary-key
 * lookup. Safe because better-sqlite3 runs each statement to completion
 * synchronously (nothing here streams with iterate()).
 */
function withStatementCache(sqlite: SQLite.Database): SqliteDatabase {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
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

function openSqlite(file: string): Kysely<Database> {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const sqlite = new SQLite(file);
  // WAL lets the CLI and the server share the file; busy_timeout waits for a writer instead of failing.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  // In WAL mode NORMAL is durable across a process crash (only power loss can drop the last commits).
  sqlite.pragma('synchronous = NORMAL');
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
}

function openPostgres(url: string): Kysely<Database> {
  const pool = new pg.Pool({ connectionString: url, max: 10, types: pgTypes });
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
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
