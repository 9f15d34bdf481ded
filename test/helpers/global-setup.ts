/**
 * Says out loud which stores and browsers this run covers. In CI (CI=true)
 * PostgreSQL and Chromium are required: a missing one fails the run.
 * Also clears the per-server schemas and databases that earlier, finished
 * runs left behind; those of a run still going on beside this one are kept.
 */
import { existsSync } from 'node:fs';
import pg from 'pg';
import { DATABASE_PREFIX, leftBehind, SCHEMA_PREFIX } from './test-database-names.ts';

export const CHROMIUM = '/usr/bin/chromium';

async function dropLeftovers(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const schemas = await client.query<{ name: string }>(`select nspname as name from pg_namespace where nspname like 't\\_%'`);
    for (const { name } of schemas.rows) {
      if (leftBehind(name, SCHEMA_PREFIX)) await client.query(`drop schema if exists "${name}" cascade`);
    }
    const dbs = await client.query<{ name: string }>(`select datname as name from pg_database where datname like 'lyceum\\_t\\_%'`);
    for (const { name } of dbs.rows) {
      if (leftBehind(name, DATABASE_PREFIX)) await client.query(`drop database if exists "${name}" with (force)`);
    }
  } finally {
    await client.end();
  }
}

export default async function setup(): Promise<void> {
  const ci = process.env.CI === 'true';
  if (!process.env.TEST_DATABASE_URL) {
    if (ci) throw new Error('CI=true but TEST_DATABASE_URL is not set: the PostgreSQL store must be tested in CI');
    console.warn('\n[lyceum tests] TEST_DATABASE_URL is not set: PostgreSQL tests are SKIPPED (SQLite only).\n');
  } else {
    await dropLeftovers(process.env.TEST_DATABASE_URL);
  }
  if (!existsSync(CHROMIUM)) {
    if (ci) throw new Error(`CI=true but ${CHROMIUM} is missing: browser tests are required in CI`);
    console.warn(`\n[lyceum tests] ${CHROMIUM} not found: browser tests are SKIPPED (apt-get install -y chromium).\n`);
  }
}
