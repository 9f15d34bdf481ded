/**
 * The bench's request scripts (bench/scenarios.ts, bench/flow-requests.ts)
 * against the real app: every scenario, run briefly with autocannon, gets
 * only the answers it expects. When a page, form or endpoint changes, this
 * fails in `npm test` rather than in the next bench run.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runLoad } from '../../bench/load.ts';
import { prepareServer, SCENARIOS, type ServerContext } from '../../bench/scenarios.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let ctx: ServerContext;

beforeAll(async () => {
  server = await startTestServer('sqlite');
  const user = await server.addUser('owner');
  ctx = await prepareServer(server.issuer, user, 4);
});
afterAll(() => server.close());

it.each(SCENARIOS.map((s) => [s.id, s] as const))('%s runs without errors', async (_id, scenario) => {
  const prepared = await scenario.prepare(ctx);
  // A whole flow checks a password (argon2id): long enough for one to complete on a busy machine.
  const duration = prepared.completions ? 1.5 : 0.2;
  const r = await runLoad({
    origin: server.issuer,
    pid: process.pid,
    requests: prepared.requests,
    connections: 2,
    duration,
    warmup: 0,
    ...(prepared.completions ? { completions: prepared.completions } : {}),
  });
  expect(r.errorSamples).toEqual([]);
  expect(r.errors).toBe(0);
  expect(r.rate).toBeGreaterThan(0);
});
