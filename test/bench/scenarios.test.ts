/**
 * The bench's request scripts (bench/scenarios.ts, bench/school-scenarios.ts, bench/flow-requests.ts)
 * against the real app: every scenario, run briefly with autocannon, gets
 * only the answers it expects. When a page, form or endpoint changes, this
 * fails in `npm test` rather than in the next bench run.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runLoad } from '../../bench/load.ts';
import { prepareServer, SCENARIOS, type ServerContext } from '../../bench/scenarios.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { seedDemo } from '../../src/demo/seed.ts';

let server: TestServer;
let ctx: ServerContext;

beforeAll(async () => {
  server = await startTestServer('sqlite');
  // The school the bench serves by default: the demo, as a first start writes it.
  await seedDemo(server.deps.store, server.deps.now());
  const user = await server.addUser('owner');
  ctx = await prepareServer(server.issuer, user, 4);
});
afterAll(() => server.close());

it.each(SCENARIOS.map((s) => [s.id, s] as const))('%s runs without errors', async (_id, scenario) => {
  const prepared = await scenario.prepare(ctx);
  // A whole flow checks a password (argon2id): long enough for one to complete on a busy machine.
  const duration = prepared.completions ? 1.5 : 0.2;
  const background = prepared.background && runLoad({ origin: server.issuer, pid: process.pid, requests: prepared.background, connections: 1, duration, warmup: 0 });
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
  const loaded = await background;
  if (loaded) expect({ errors: loaded.errors, samples: loaded.errorSamples }).toEqual({ errors: 0, samples: [] });
});
