import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/server.ts';

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGTERM');
});

function serve(env: Record<string, string>): Promise<{ output: string; port: number }> {
  const port = Number(env.PORT);
  const child = spawn(process.execPath, ['bin/lyceum.js', 'serve'], {
    cwd: new URL('../..', import.meta.url).pathname,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', ...env },
  });
  children.push(child);
  let output = '';
  child.stdout.on('data', (d) => (output += String(d)));
  child.stderr.on('data', (d) => (output += String(d)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start within 60 s: ${output}`)), 60_000);
    child.stdout.on('data', () => {
      if (output.includes('Lyceum is serving')) {
        clearTimeout(timer);
        resolve({ output, port });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}: ${output}`));
    });
  });
}

describe('two instances starting at once on a fresh database', () => {
  it('both come up; one creates the owner and the demo school, and nothing is duplicated', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'lyceum-start-')), 'lyceum.sqlite');
    const [a, b] = await Promise.all([
      serve({ PORT: String(await freePort()), DATABASE_URL: file }),
      serve({ PORT: String(await freePort()), DATABASE_URL: file }),
    ]);
    const owners = [a, b].filter((s) => s.output.includes('created the school owner'));
    expect(owners.length).toBe(1);
    for (const s of [a, b]) {
      const res = await fetch(`http://127.0.0.1:${s.port}/api/v1/courses?limit=100`);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { data: unknown[] }).data.length).toBe(8);
    }
  }, 90_000);
});
