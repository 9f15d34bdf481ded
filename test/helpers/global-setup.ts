/**
 * Says out loud which stores and browsers this run covers. In CI (CI=true)
 * PostgreSQL and Chromium are required: a missing one fails the run.
 */
import { existsSync } from 'node:fs';

export default function setup(): void {
  const ci = process.env.CI === 'true';
  if (!process.env.TEST_DATABASE_URL) {
    if (ci) throw new Error('CI=true but TEST_DATABASE_URL is not set: the PostgreSQL store must be tested in CI');
    console.warn('\n[lyceum tests] TEST_DATABASE_URL is not set: PostgreSQL tests are SKIPPED (SQLite only).\n');
  }
  if (!existsSync(CHROMIUM)) {
    if (ci) throw new Error(`CI=true but ${CHROMIUM} is missing: browser tests are required in CI`);
    console.warn(`\n[lyceum tests] ${CHROMIUM} not found: browser tests are SKIPPED (apt-get install -y chromium).\n`);
  }
}

export const CHROMIUM = '/usr/bin/chromium';
