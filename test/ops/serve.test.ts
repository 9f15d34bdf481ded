/**
 * `lyceum serve` as a process of its own: with METRICS_PORT it says where
 * the metrics are and serves them until SIGTERM closes both listeners; a
 * database lost under it makes /readyz 503 and is logged once, with its
 * cause, while the response says only what kind of failure it is.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createUser } from '../../src/cli/users.ts';
import { openStore } from '../../src/store/kysely/open.ts';
import { freshPostgresDatabase } from '../helpers/postgres-database.ts';
import { freePort } from '../helpers/server.ts';
import { spawnServe } from '../helpers/spawn-serve.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

describe('lyceum serve with METRICS_PORT', () => {
  it('prints the metrics URL, serves it on its own port, and SIGTERM closes both listeners', async () => {
    const [port, metricsPort] = [await freePort(), await freePort()];
    const file = join(mkdtempSync(join(tmpdir(), 'lyceum-metrics-')), 'lyceum.sqlite');
    const server = await spawnServe({ LOG_LEVEL: 'warn', PORT: String(port), HOST: '127.0.0.1', METRICS_PORT: String(metricsPort), DATABASE_URL: file });
    try {
      expect(server.stdout()).toContain(`Prometheus metrics at http://127.0.0.1:${metricsPort}/metrics`);
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
      const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      expect(text).toMatch(/^lyceum_http_requests_total\{method="GET",route="\/readyz",status="200"\} 1$/m);
      expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(404);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    await expect(fetch(`http://127.0.0.1:${metricsPort}/metrics`)).rejects.toThrow();
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  }, 90_000);
});

describe.runIf(STORE_KINDS.includes('postgres'))('lyceum serve losing its PostgreSQL database', () => {
  it('answers 503 at every probe, logs one warning with the cause, and names nothing in the body', async () => {
    const db = await freshPostgresDatabase();
    const keysSecret = 'serve-readiness-keys-secret-0123456789abcdef';
    // An owner already there: serve creates none, so no password file is written.
    const store = openStore({ kind: 'postgres', url: db.url });
    await store.migrate();
    await createUser(store, { email: 'owner@readiness.test', password: 'a long enough password', name: 'Owner', role: 'owner' });
    await store.close();
    const port = await freePort();
    const server = await spawnServe({ LOG_LEVEL: 'info', PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: db.url, KEYS_SECRET: keysSecret });
    try {
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
      await db.drop();
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`http://127.0.0.1:${port}/readyz`);
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toBe('5');
        expect(await res.json()).toEqual({ error: 'temporarily_unavailable', error_description: 'The database cannot be reached.' });
      }
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      // Lines are written in batches, at most a quarter of a second late.
      await new Promise((resolve) => setTimeout(resolve, 400));
      const warnings = server
        .stdout()
        .split('\n')
        .filter((l) => l.includes('"event":"not_ready"'))
        .map((l) => JSON.parse(l) as { level: number; reason: string; err?: { message: string } });
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ level: 40, reason: 'store_unreachable', err: { message: expect.stringMatching(/\S/) } });
    } finally {
      await server.stop();
      await db.drop();
    }
  }, 90_000);
});
