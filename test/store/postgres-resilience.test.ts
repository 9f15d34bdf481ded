import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPostgresDatabase } from '../helpers/postgres-database.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const hasPostgres = Boolean(process.env.TEST_DATABASE_URL);

describe.skipIf(!hasPostgres)('PostgreSQL connections ended by the server', () => {
  let db: Awaited<ReturnType<typeof freshPostgresDatabase>>;
  let server: TestServer;
  beforeAll(async () => {
    db = await freshPostgresDatabase();
    server = await startTestServer('postgres', { DATABASE_URL: db.url });
  });
  afterAll(async () => {
    await server?.close();
    await db?.drop();
  });

  it('does not crash the process and serves the next request on a fresh connection', async () => {
    expect((await fetch(`${server.issuer}/api/v1/courses`)).status).toBe(200);
    const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    const name = new URL(db.url).pathname.slice(1);
    const killed = await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [name]);
    await admin.end();
    expect(killed.rowCount).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 200));
    // The first query may still meet a connection that died mid-flight; the pool then replaces it.
    let status = 0;
    for (let i = 0; i < 5 && status !== 200; i++) status = (await fetch(`${server.issuer}/api/v1/courses`)).status;
    expect(status).toBe(200);
  });
});
