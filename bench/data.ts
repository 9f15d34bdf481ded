/**
 * The bench's direct access to the store's database: fresh databases, bulk
 * token rows (random hashes, straight into the tokens table, in batches of
 * one multi-row INSERT … SELECT per transaction) and counts.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';

export type StoreKind = 'sqlite' | 'postgres';

export interface Database {
  kind: StoreKind;
  url: string;
  /** Drops a PostgreSQL database; SQLite files stay in the run's temporary directory. */
  drop(): Promise<void>;
}

export function postgresBaseUrl(): string | undefined {
  return process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;
}

export async function freshDatabase(kind: StoreKind, dir: string): Promise<Database> {
  if (kind === 'sqlite') {
    const url = join(mkdtempSync(join(dir, 'sqlite-')), 'lyceum.sqlite');
    return { kind, url, drop: async () => {} };
  }
  const base = postgresBaseUrl();
  if (!base) throw new Error('BENCH_DATABASE_URL or TEST_DATABASE_URL is needed for PostgreSQL');
  const name = `lyceum_bench_${randomBytes(5).toString('hex')}`;
  await withPg(base, (c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    kind,
    url: url.href,
    drop: () => withPg(base, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

async function withPg<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export interface TokenRows {
  clientId: string;
  userId: string;
  expiresAt: number;
  /** Set to make them revoked tokens. */
  revokedAt?: number;
}

const BATCH = 50_000;

/** Inserts `count` access-token rows with random hashes. */
export async function insertTokens(db: Database, count: number, rows: TokenRows): Promise<void> {
  const now = Date.now();
  if (db.kind === 'sqlite') {
    const sqlite = new SQLite(db.url);
    sqlite.pragma('busy_timeout = 10000');
    try {
      const insert = sqlite.prepare(`
        WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < ?)
        INSERT INTO tokens (hash, kind, client_id, user_id, scope, resource, family_id, auth_time, expires_at, created_at, revoked_at, rotated_at, salt)
        SELECT lower(hex(randomblob(22))), 'access', ?, ?, 'students:read', NULL, lower(hex(randomblob(16))), ?, ?, ?, ?, NULL, NULL FROM seq`);
      const batch = sqlite.transaction((n: number) => insert.run(n, rows.clientId, rows.userId, now, rows.expiresAt, now, rows.revokedAt ?? null));
      for (let done = 0; done < count; done += BATCH) batch(Math.min(BATCH, count - done));
      // Fold the WAL back into the database file, as a long-running server's checkpoints would have.
      sqlite.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      sqlite.close();
    }
    return;
  }
  await withPg(db.url, async (c) => {
    for (let done = 0; done < count; done += BATCH) {
      await c.query('BEGIN');
      await c.query(
        `INSERT INTO tokens (hash, kind, client_id, user_id, scope, resource, family_id, auth_time, expires_at, created_at, revoked_at, rotated_at, salt)
         SELECT substr(md5(random()::text) || md5(random()::text), 1, 43), 'access', $2, $3, 'students:read', NULL, md5(random()::text), $4, $5, $4, $6, NULL, NULL
         FROM generate_series(1, $1)`,
        [Math.min(BATCH, count - done), rows.clientId, rows.userId, now, rows.expiresAt, rows.revokedAt ?? null],
      );
      await c.query('COMMIT');
    }
    await c.query('ANALYZE tokens');
  });
}

async function query<T>(db: Database, sql: string, params: unknown[] = []): Promise<T[]> {
  if (db.kind === 'sqlite') {
    const sqlite = new SQLite(db.url, { readonly: true });
    try {
      return sqlite.prepare(sql.replace(/\$\d+/g, '?')).all(...params) as T[];
    } finally {
      sqlite.close();
    }
  }
  return withPg(db.url, async (c) => (await c.query(sql, params)).rows as T[]);
}

export async function countTokens(db: Database): Promise<number> {
  const [row] = await query<{ n: number | string }>(db, 'SELECT count(*) AS n FROM tokens');
  return Number(row?.n ?? 0);
}

export async function userId(db: Database, email: string): Promise<string> {
  const [row] = await query<{ id: string }>(db, 'SELECT id FROM users WHERE email = $1', [email]);
  if (!row) throw new Error(`no user ${email}`);
  return row.id;
}
