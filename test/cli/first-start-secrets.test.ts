/**
 * `lyceum serve` on a fresh data directory, as a deployment starts it (stdout
 * piped into a log collector, not a terminal): the data directory and every
 * file it creates there are owner-only.
 */
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/server.ts';
import { spawnServe, type ServeProcess } from '../helpers/spawn-serve.ts';

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

describe('first start on a fresh data directory, stdout not a terminal', () => {
  const dataDir = join(mkdtempSync(join(tmpdir(), 'lyceum-secrets-')), 'data');
  const dbFile = join(dataDir, 'lyceum.sqlite');
  let server: ServeProcess;

  beforeAll(async () => {
    const port = await freePort();
    server = await spawnServe({ LOG_LEVEL: 'info', PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: dbFile });
  }, 60_000);
  afterAll(() => server?.stop());

  it('creates the data directory 0700 and the database, its -wal and -shm and keys.secret 0600', () => {
    expect(mode(dataDir)).toBe('700');
    for (const file of ['lyceum.sqlite', 'lyceum.sqlite-wal', 'lyceum.sqlite-shm', 'keys.secret']) {
      expect(existsSync(join(dataDir, file)), file).toBe(true);
      expect(mode(join(dataDir, file)), file).toBe('600');
    }
  });

});
