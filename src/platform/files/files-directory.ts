import { dirname, resolve } from 'node:path';
import type { Config } from '../../config/index.ts';

/**
 * Where uploaded bytes live: `files/` in the data directory, which is the
 * directory of the SQLite file, or ./data with PostgreSQL (and an in-memory SQLite).
 */
export function filesDirectory(database: Config['database']): string {
  const dataDir = database.kind === 'sqlite' && database.file !== ':memory:' ? dirname(database.file) : './data';
  return resolve(dataDir, 'files');
}
