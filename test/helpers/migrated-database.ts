import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, sql, SqliteDialect } from 'kysely';
import pg from 'pg';
import { migrationProvider } from '../../src/store/migrations/index.ts';
import { freshDatabaseUrl, type StoreKind } from './stores.ts';

/**
 * A fresh database migrated up to `migration` and no further, filled by `fill`
 * as a school would have left it then: for a test of the migration after it,
 * on an upgraded database. Returns its DATABASE_URL.
 */
export async function databaseMigratedTo(kind: StoreKind, migration: string, fill: (db: Kysely<unknown>) => Promise<void>): Promise<string> {
  const url = await freshDatabaseUrl(kind);
  const db = new Kysely<unknown>({
    dialect: kind === 'sqlite' ? new SqliteDialect({ database: new SQLite(url) }) : new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1 }) }),
  });
  try {
    // On PostgreSQL the migration history lives in the test's own schema, as the store keeps it.
    const schema = kind === 'postgres' ? (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]!.s : undefined;
    const { error } = await new Migrator({ db, provider: migrationProvider, ...(schema ? { migrationTableSchema: schema } : {}) }).migrateTo(migration);
    if (error) throw error;
    await fill(db);
  } finally {
    await db.destroy();
  }
  return url;
}

/** A loopback client's metadata column as a past migration's tests insert it by hand. */
export const CLIENT_METADATA_COLUMN = JSON.stringify({
  redirect_uris: ['http://127.0.0.1/cb'],
  grant_types: ['authorization_code'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
  application_type: 'native',
});
