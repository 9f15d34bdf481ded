import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnServe, type ServeProcess } from '../helpers/spawn-serve.ts';

const children: ServeProcess[] = [];
afterAll(async () => {
  for (const c of children) await c.stop();
});

async function serve(env: Record<string, string>): Promise<{ output: string; port: number }> {
  const server = await spawnServe({ LOG_LEVEL: 'warn', ...env });
  children.push(server);
  return { output: server.stdout() + server.stderr(), port: server.port() };
}

describe('two instances starting at once on a fresh database', () => {
  it('both come up; one creates the owner and the demo school, and nothing is duplicated', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'lyceum-start-')), 'lyceum.sqlite');
    // PORT=0: each takes a port when it listens; one chosen beforehand could be taken while the first start sets up the school.
    const [a, b] = await Promise.all([serve({ PORT: '0', DATABASE_URL: file }), serve({ PORT: '0', DATABASE_URL: file })]);
    const owners = [a, b].filter((s) => s.output.includes('created the school owner'));
    expect(owners.length).toBe(1);
    for (const s of [a, b]) {
      const res = await fetch(`http://127.0.0.1:${s.port}/api/v1/courses?limit=100`);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { data: unknown[] }).data.length).toBe(8);
    }
  }, 90_000);
});
