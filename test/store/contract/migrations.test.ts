/**
 * The store contract of migrations (src/store/repositories/), run against every
 * store kind: SQLite always, PostgreSQL when TEST_DATABASE_URL is set.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/store/kysely/open.ts';
import type { Client, Store, User } from '../../../src/store/types.ts';
import { freshPostgresDatabase } from '../../helpers/postgres-database.ts';
import { databaseConfig, freshDatabaseUrl, STORE_KINDS } from '../../helpers/stores.ts';
import { newUser, openContractStore } from '../../helpers/store-contract.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const OPEN_TS = fileURLToPath(new URL('../../../src/store/kysely/open.ts', import.meta.url));

/**
 * Each process opens the store, makes one query (so the connection is up),
 * says "ready", waits for "go" on stdin, then runs migrate(): several
 * instances starting at the same moment.
 */
const MIGRATE_SCRIPT = `
const url = process.argv[process.argv.length - 1];
const { openStore } = await import(${JSON.stringify(OPEN_TS)});
const store = openStore(url.startsWith('postgres') ? { kind: 'postgres', url } : { kind: 'sqlite', file: url });
await store.users.findById('warm-up').catch(() => undefined);
process.stdout.write('ready\\n');
await new Promise((resolve) => process.stdin.once('data', resolve));
try {
  await store.migrate();
  process.stdout.write('ok');
} catch (err) {
  process.stdout.write(String(err instanceof Error ? err.message : err));
} finally {
  await store.close();
  process.stdin.destroy();
}
`;

async function migrateFromProcesses(url: string, count: number): Promise<string[]> {
  const children = Array.from({ length: count }, () =>
    spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', MIGRATE_SCRIPT, '--', url], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] }),
  );
  const outputs = children.map((child) => {
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += String(d)));
    child.stderr.on('data', (d: Buffer) => (err += String(d)));
    const ready = new Promise<void>((resolve, reject) => {
      const check = () => (out.startsWith('ready\n') ? resolve() : undefined);
      child.stdout.on('data', check);
      child.once('exit', () => reject(new Error(`exited before it was ready: ${err.split('\n')[0]}`)));
    });
    const done = new Promise<string>((resolve) => child.once('close', () => resolve(out.replace(/^ready\n/, '').trim() || `exited: ${err.split('\n')[0]}`)));
    return { child, ready, done };
  });
  try {
    await Promise.all(outputs.map((o) => o.ready));
  } catch (err) {
    for (const o of outputs) o.child.kill();
    throw err;
  }
  // Every process is connected and waiting: release them together.
  for (const o of outputs) o.child.stdin.write('go\n');
  return Promise.all(outputs.map((o) => o.done));
}

describe.each(STORE_KINDS)('store contract: migrations (%s)', (kind) => {
  let store: Store, url: string, user: User, client: Client;
  beforeAll(async () => ({ store, url, user, client } = await openContractStore(kind)));
  afterAll(() => store?.close());

  it('reports its kind', () => {
    expect(store.kind).toBe(kind);
  });

  describe('migrations', () => {
    it('migrate() a second time is a no-op that keeps the data', async () => {
      await store.migrate();
      await store.migrate();
      expect(await store.users.findById(user.id)).toMatchObject({ id: user.id });
      expect(await store.clients.find(client.id)).toMatchObject({ id: client.id });
    });

    it('the purge finds revoked tokens through the partial index tokens_revoked_at, not a table scan', async () => {
      const query = 'SELECT hash FROM tokens WHERE revoked_at < 1000 LIMIT 50';
      let plan: string;
      if (kind === 'sqlite') {
        const db = new SQLite(url, { readonly: true });
        plan = db
          .prepare(`EXPLAIN QUERY PLAN ${query}`)
          .all()
          .map((r) => (r as { detail: string }).detail)
          .join('\n');
        db.close();
      } else {
        const c = new pg.Client({ connectionString: url });
        await c.connect();
        // A nearly empty table would be scanned whatever its indexes: ask for the plan the index allows.
        await c.query('SET enable_seqscan = off');
        plan = (await c.query(`EXPLAIN ${query}`)).rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n');
        await c.end();
      }
      expect(plan).toMatch(/tokens_revoked_at/);
    });

    it('six processes migrating one fresh database at the same moment all succeed', async () => {
      const other = await freshDatabaseUrl(kind);
      expect(await migrateFromProcesses(other, 6)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'ok']);
      const s = openStore(databaseConfig(other));
      try {
        await s.migrate();
        const u = newUser();
        await s.users.create(u);
        expect(await s.users.findById(u.id)).toEqual(u);
      } finally {
        await s.close();
      }
    }, 60_000);

    // Several pools in one process are real concurrent instances on PostgreSQL. (SQLite's
    // synchronous driver cannot wait for a second connection of its own process.)
    it.runIf(kind === 'postgres')('three stores in one process migrating at once, then again, all succeed', async () => {
      const other = await freshDatabaseUrl(kind);
      const stores = [0, 1, 2].map(() => openStore(databaseConfig(other)));
      try {
        const first = await Promise.allSettled(stores.map((st) => st.migrate()));
        expect(first.map((r) => (r.status === 'rejected' ? String(r.reason) : 'ok'))).toEqual(['ok', 'ok', 'ok']);
        const second = await Promise.allSettled(stores.map((st) => st.migrate()));
        expect(second.map((r) => (r.status === 'rejected' ? String(r.reason) : 'ok'))).toEqual(['ok', 'ok', 'ok']);
      } finally {
        for (const st of stores) await st.close();
      }
    });
  });
});

describe.runIf(STORE_KINDS.includes('postgres'))('PostgreSQL store in a schema of a shared database', () => {
  it('migrates and works in a fresh schema even when another schema of the database already holds Lyceum tables', async () => {
    // freshDatabaseUrl('postgres') selects a new schema through search_path, as a deployment sharing a database would.
    const [first, second] = [openStore(databaseConfig(await freshDatabaseUrl('postgres'))), openStore(databaseConfig(await freshDatabaseUrl('postgres')))];
    try {
      await first.migrate();
      await second.migrate();
      const u = newUser();
      await second.users.create(u);
      expect(await second.users.findById(u.id)).toEqual(u);
      expect(await first.users.findById(u.id)).toBeUndefined();
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('migrate() is not disturbed by other schemas being created and dropped in the same database meanwhile', async () => {
    // A database of its own, so the churn below cannot reach the other test files' schemas.
    const db = await freshPostgresDatabase();
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    let stop = false;
    const churn = (async () => {
      for (let i = 0; !stop; i++) {
        await admin.query(`CREATE SCHEMA other_app_${i}; CREATE TABLE other_app_${i}.t (id text)`);
        await admin.query(`DROP SCHEMA other_app_${i} CASCADE`);
      }
    })();
    const results: string[] = [];
    try {
      for (let k = 0; k < 8; k++) {
        const schema = `lyceum_${k}`;
        await admin.query(`CREATE SCHEMA ${schema}`);
        const url = new URL(db.url);
        url.searchParams.set('options', `-c search_path=${schema}`);
        const store = openStore(databaseConfig(url.href));
        try {
          await store.migrate();
          results.push('ok');
        } catch (err) {
          results.push((err as Error).message);
        } finally {
          await store.close();
        }
      }
    } finally {
      stop = true;
      await churn.catch(() => undefined);
      await admin.end();
      await db.drop();
    }
    expect(results).toEqual(Array.from({ length: 8 }, () => 'ok'));
  }, 60_000);

  it('times are stored in bigint columns and come back as numbers, up to the largest Date', async () => {
    const url = await freshDatabaseUrl('postgres');
    const store = openStore(databaseConfig(url));
    try {
      await store.migrate();
      const u = newUser({ createdAt: 8_640_000_000_000_000, updatedAt: 8_640_000_000_000_000 });
      await store.users.create(u);
      expect(await store.users.findById(u.id)).toEqual(u);
      const raw = new pg.Client({ connectionString: url });
      await raw.connect();
      try {
        const r = await raw.query<{ c: string; t: string }>(
          `select table_name || '.' || column_name as c, data_type as t from information_schema.columns
           where table_schema = current_schema() and column_name in ('expires_at', 'created_at', 'revoked_at', 'rotated_at', 'auth_time')
           order by 1`,
        );
        expect(r.rows.length).toBeGreaterThan(0);
        for (const row of r.rows) expect(row.t, row.c).toBe('bigint');
      } finally {
        await raw.end();
      }
    } finally {
      await store.close();
    }
  });
});
