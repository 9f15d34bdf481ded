import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { testSchemaName } from './test-database-names.ts';
import type { Config } from '../../src/config/index.ts';

export type StoreKind = 'sqlite' | 'postgres';

/** The stores this run covers: SQLite always, PostgreSQL when TEST_DATABASE_URL is set; TEST_STORES=postgres narrows it. */
export const STORE_KINDS: StoreKind[] = (process.env.TEST_DATABASE_URL ? (['sqlite', 'postgres'] as StoreKind[]) : (['sqlite'] as StoreKind[])).filter(
  (k) => !process.env.TEST_STORES || process.env.TEST_STORES.split(',').includes(k),
);

/**
 * A fresh, empty database of the given kind, as a DATABASE_URL: a new SQLite
 * file, or a new PostgreSQL schema (selected through search_path) so that
 * test files running in parallel never see each other's rows.
 */
export async function freshDatabaseUrl(kind: StoreKind): Promise<string> {
  if (kind === 'sqlite') return join(mkdtempSync(join(tmpdir(), 'lyceum-test-')), 'lyceum.sqlite');
  const base = process.env.TEST_DATABASE_URL!;
  const schema = testSchemaName();
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.end();
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.href;
}

export function databaseConfig(url: string): Config['database'] {
  return url.startsWith('postgres') ? { kind: 'postgres', url } : { kind: 'sqlite', file: url };
}
