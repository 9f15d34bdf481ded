/**
 * SIGTERM under a steady load of keep-alive requests, on the real
 * `lyceum serve`: /readyz turns 503 at once, requests go on being served for
 * the drain period with `Connection: close`, then the listener closes. No
 * connection is reset mid-request, every answer is a normal one or
 * Lyceum's own 503 shape, and the process exits 0.
 */
import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../helpers/server.ts';
import { spawnServe } from '../helpers/spawn-serve.ts';

const DRAIN_MS = 600;
const CLIENTS = 8;
const PATHS = ['/.well-known/openid-configuration', '/api/v1/courses?limit=5', '/healthz', '/.well-known/oauth-authorization-server'];

interface Answer {
  at: number;
  status: number;
  body: string;
  connection: string | undefined;
}

function get(port: number, path: string, agent: http.Agent | false): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ at: performance.now(), status: res.statusCode!, body, connection: res.headers.connection }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

const isLyceum503 = (a: Answer) => {
  try {
    const json = JSON.parse(a.body) as Record<string, unknown>;
    return a.status === 503 && json.error === 'temporarily_unavailable' && typeof json.error_description === 'string';
  } catch {
    return false;
  }
};

describe('lyceum serve stopping under load', () => {
  it('drains, then closes: /readyz 503 at once, no reset, only normal answers or Lyceum’s 503, exit 0', async () => {
    const port = await freePort();
    const file = join(mkdtempSync(join(tmpdir(), 'lyceum-stop-')), 'lyceum.sqlite');
    const server = await spawnServe({ LOG_LEVEL: 'warn', PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: file, SHUTDOWN_DRAIN_MS: String(DRAIN_MS) });
    const answers: Answer[] = [];
    const failures: string[] = [];
    let refusedAt: number | undefined;
    let signalledAt = Infinity;
    // Each client sends its requests one after another on a keep-alive connection of its own, until the
    // listener is gone. Its own: from a shared pool a client could take another's connection and leave its
    // last answer, told keep-alive before the listener closed, on a connection someone else went on using.
    const agents = Array.from({ length: CLIENTS }, () => new http.Agent({ keepAlive: true, maxSockets: 1 }));
    const lastAnswers: (Answer | undefined)[] = [];
    const load = Array.from({ length: CLIENTS }, async (_, c) => {
      for (let i = c; ; i++) {
        try {
          const answer = await get(port, PATHS[i % PATHS.length]!, agents[c]!);
          answers.push(answer);
          lastAnswers[c] = answer;
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          // A refused connection is the closed listener: nothing was sent, nothing was lost.
          if (code === 'ECONNREFUSED') {
            refusedAt ??= performance.now();
            return;
          }
          failures.push(`${code ?? ''} ${(err as Error).message} at +${Math.round(performance.now() - signalledAt)} ms`);
          return;
        }
      }
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const steady = answers.length;
    signalledAt = performance.now();
    server.child.kill('SIGTERM');
    // The signal takes a moment to arrive: probe until /readyz says 503, as a load balancer would.
    let ready = await get(port, '/readyz', false);
    while (ready.status === 200 && performance.now() - signalledAt < 1000) ready = await get(port, '/readyz', false);
    const readyMs = performance.now() - signalledAt;
    const exitCode = await server.stop();
    await Promise.all(load);
    for (const agent of agents) agent.destroy();

    expect(failures).toEqual([]);
    expect(exitCode).toBe(0);
    expect(steady).toBeGreaterThan(20);
    expect(ready.status).toBe(503);
    expect(isLyceum503(ready)).toBe(true);
    expect(readyMs).toBeLessThan(DRAIN_MS / 2);
    for (const a of answers) expect(a.status === 200 || isLyceum503(a), `${a.status} ${a.body.slice(0, 120)}`).toBe(true);
    // Served on through the drain, at the same pace, before the listener closed.
    const lateDrain = answers.filter((a) => a.at > signalledAt + DRAIN_MS / 2 && a.at < signalledAt + DRAIN_MS);
    expect(lateDrain.length).toBeGreaterThan(CLIENTS);
    expect(lateDrain.every((a) => a.status === 200)).toBe(true);
    expect(refusedAt! - signalledAt).toBeGreaterThanOrEqual(DRAIN_MS);
    // Each keep-alive connection was told on its last answer that it ends there.
    expect(lastAnswers.map((a) => a?.connection)).toEqual(Array(CLIENTS).fill('close'));
  }, 60_000);
});
