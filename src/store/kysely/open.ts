import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, sql, SqliteDialect } from 'kysely';
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

/** pg returns BIGINT as a string; every Lyceum bigint is an epoch-ms time, safe as a number. */
const pgTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

function openSqlite(file: string): Kysely<Database> {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const sqlite = new SQLite(file);
  // WAL lets the CLI and the server share the file; busy_timeout waits for a writer instead of failing.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  // In WAL mode NORMAL is durable across a process crash (only power loss can drop the last commits).
  sqlite.pragma('synchronous = NORMAL');
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
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
      const { error, results } = await migrator.migrateToLatest();
      if (error) {
        const failed = results?.find((r) => r.status === 'Error')?.migrationName;
        throw new Error(`migration ${failed ?? ''} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    },
    async close() {
      await db.destroy();
    },
  };
}
