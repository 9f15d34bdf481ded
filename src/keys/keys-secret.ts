import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Config } from '../config/index.ts';
import { createPrivateFile } from '../util/private-files.ts';

/**
 * The secret that seals signing keys. KEYS_SECRET when set; for an embedded
 * SQLite store without it, a random one kept in `keys.secret` (mode 0600)
 * beside the database file, so a fresh clone needs no setup.
 */
export function resolveKeysSecret(config: Pick<Config, 'keysSecret' | 'database'>): string {
  if (config.keysSecret) return config.keysSecret;
  if (config.database.kind !== 'sqlite') throw new Error('KEYS_SECRET is required with PostgreSQL');
  const file = join(dirname(config.database.file), 'keys.secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const secret = randomBytes(32).toString('base64url');
  // Another process created it first: use theirs.
  if (!createPrivateFile(file, `${secret}\n`)) return readFileSync(file, 'utf8').trim();
  return secret;
}
