import pg from 'pg';
import { testDatabaseName } from './test-database-names.ts';
import type { StoreKind } from './stores.ts';

/**
 * A fresh PostgreSQL database (not only a schema) for one test server, so that
 * tables other test runs left in other schemas of the shared database are never
 * visible to the store's migrator. drop() removes it once the server is closed.
 */
export async function freshPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const base = process.env.TEST_DATABASE_URL;
  if (!base) throw new Error('TEST_DATABASE_URL is not set');
  const name = testDatabaseName();
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    async drop() {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** Settings for startTestServer: a database of its own for PostgreSQL, the default fresh file for SQLite. */
export async function isolatedDatabase(kind: StoreKind): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  if (kind !== 'postgres') return { env: {}, drop: async () => {} };
  const db = await freshPostgresDatabase();
  return { env: { DATABASE_URL: db.url }, drop: db.drop };
}
