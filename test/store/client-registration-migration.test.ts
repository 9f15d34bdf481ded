/**
 * Migration 008 on a database that already has clients: every one of them
 * came through open registration, so each becomes `open` (and stays subject
 * to the purge of never-used clients), while clients added afterwards keep
 * the kind they are created with.
 */
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, sql, SqliteDialect } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { migrationProvider } from '../../src/store/migrations/index.ts';
import { openStore } from '../../src/store/kysely/open.ts';
import { databaseConfig, freshDatabaseUrl, STORE_KINDS } from '../helpers/stores.ts';

const BEFORE_008 = '007-client-last-used';

const METADATA = JSON.stringify({
  redirect_uris: ['http://127.0.0.1/cb'],
  grant_types: ['authorization_code'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
  application_type: 'native',
});

/** The database as it was before migration 008, with two clients. */
async function databaseBefore008(kind: 'sqlite' | 'postgres'): Promise<string> {
  const url = await freshDatabaseUrl(kind);
  const db = new Kysely<unknown>({
    dialect: kind === 'sqlite' ? new SqliteDialect({ database: new SQLite(url) }) : new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1 }) }),
  });
  try {
    const schema = kind === 'postgres' ? (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]!.s : undefined;
    const migrator = new Migrator({ db, provider: migrationProvider, ...(schema ? { migrationTableSchema: schema } : {}) });
    const { error } = await migrator.migrateTo(BEFORE_008);
    if (error) throw error;
    for (const id of ['used', 'never-used']) {
      await sql`insert into clients (id, secret_hash, metadata, created_at, last_used_at) values (${id}, null, ${METADATA}, 10, ${id === 'used' ? 20 : null})`.execute(db);
    }
  } finally {
    await db.destroy();
  }
  return url;
}

describe.each(STORE_KINDS)('migration 008 records who registered each client (%s)', (kind) => {
  it('makes every existing client an open-registration one, still purged when never used; new clients keep their kind', async () => {
    const url = await databaseBefore008(kind);
    const store = openStore(databaseConfig(url));
    try {
      await store.migrate();
      expect(Object.fromEntries((await store.clients.list()).map((c) => [c.id, c.registration]))).toEqual({ used: 'open', 'never-used': 'open' });
      await store.clients.create({ id: 'school', secretHash: null, metadata: JSON.parse(METADATA), createdAt: 10, registration: 'operator' });
      expect(await store.clients.purgeNeverUsed(1_000)).toBe(1);
      expect(Object.fromEntries((await store.clients.list()).map((c) => [c.id, c.registration]))).toEqual({ used: 'open', school: 'operator' });
    } finally {
      await store.close();
    }
  });
});
