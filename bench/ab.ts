/**
 * `npm run bench:ab -- --a=<lyceum.js> --b=<lyceum.js>`: two builds of Lyceum
 * compared side by side, for a change whose effect is smaller than a shared
 * host's noise. Both serve one fresh SQLite database; each scenario of
 * --age runs on both at once (so both have served the same requests, as a
 * server that has been up a while has), then --target is loaded on both at
 * once, --rounds times. Measured one after the other, the same build against
 * itself gave CPU-per-request ratios from 0.59 to 1.22 on a 2-core machine;
 * loaded at once, both see the same moments of the host, and the same build
 * against itself gave 0.97 to 1.04 (median 0.99 over 10 rounds). Prints each
 * build's median CPU per request and p99, and the median ratio a/b (above 1:
 * b does the same work with less CPU).
 *
 * Keep each build inside the project (e.g. `cp -r dist .ab/before`), so that
 * its imports resolve to node_modules.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runLoad, type LoadResult } from './load.ts';
import { prepareServer, SCENARIOS, type ServerContext } from './scenarios.ts';
import { addBenchUser, BENCH_USER, freshDatabase, startLyceum, type Server } from './servers.ts';

const USAGE = `npm run bench:ab -- --a=PATH --b=PATH [--target=userinfo] [--age=discovery,...|none] [--rounds=10] [--connections=25]
  --a, --b      each build's lyceum.js (dist/lyceum.js of a build kept inside the project)
  --target      the scenario compared (default userinfo)
  --age         scenarios run on both first, 10 s each, both at once (default: every scenario; none: only the target, 5 s)
  --rounds      rounds of 4 s (after 0.5 s of warm-up), both loaded at once
  --connections per server`;

function options(argv: string[]) {
  const flags = new Map(
    argv
      .map(
        (a) =>
          /^--([a-z]+)=(.*)$/.exec(a) ??
          (() => {
            throw new Error(`unknown argument ${a}\n${USAGE}`);
          })(),
      )
      .map((m) => [m[1]!, m[2]!]),
  );
  const a = flags.get('a');
  const b = flags.get('b');
  if (!a || !b) throw new Error(USAGE);
  const ids = SCENARIOS.map((s) => s.id);
  const target = flags.get('target') ?? 'userinfo';
  const age = flags.get('age') === 'none' ? [] : (flags.get('age')?.split(',') ?? ids);
  for (const id of [target, ...age]) if (!ids.includes(id)) throw new Error(`unknown scenario ${id} (${ids.join(', ')})`);
  const count = (name: string, fallback: number) => {
    const n = Number(flags.get(name) ?? fallback);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a whole number above 0`);
    return n;
  };
  return { builds: [resolve(a), resolve(b)] as const, target, age, rounds: count('rounds', 10), connections: count('connections', 25) };
}

const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;

/** One scenario on every server at once, each with its own context (its clients, tokens and refresh chains). */
async function atOnce(id: string, servers: Server[], contexts: ServerContext[], connections: number, seconds: number, warmup: number): Promise<LoadResult[]> {
  const scenario = SCENARIOS.find((s) => s.id === id)!;
  const prepared = await Promise.all(contexts.map((ctx) => scenario.prepare(ctx)));
  return Promise.all(
    servers.map((server, i) => {
      const p = prepared[i]!;
      return runLoad({
        origin: server.url,
        connections: scenario.connections ?? connections,
        duration: seconds,
        warmup,
        requests: p.requests,
        pid: server.pid,
        ...(p.completions ? { completions: p.completions } : {}),
      });
    }),
  );
}

async function main(): Promise<void> {
  const opts = options(process.argv.slice(2));
  const dir = mkdtempSync(join(tmpdir(), 'lyceum-ab-'));
  const db = await freshDatabase('sqlite', dir);
  await addBenchUser(db.url, opts.builds[0]);
  const servers: Server[] = [];
  try {
    // One after the other: the first start migrates the database and seeds the demo school.
    for (const [i, main] of opts.builds.entries()) servers.push(await startLyceum(db.url, join(dir, `${'ab'[i]}.log`), main));
    const contexts = await Promise.all(servers.map((s) => prepareServer(s.url, BENCH_USER, opts.connections * 2)));
    for (const id of opts.age.length ? opts.age : [opts.target]) {
      const results = await atOnce(id, servers, contexts, opts.connections, opts.age.length ? 10 : 5, 0);
      console.log(`age ${id}: ${results.map((r, i) => `${'ab'[i]} ${(r.cpuPerUnit * 1000).toFixed(0)} µs${r.errors ? ` (${r.errors} errors)` : ''}`).join(', ')}`);
    }
    const rounds: LoadResult[][] = [];
    for (let i = 0; i < opts.rounds; i++) {
      const round = await atOnce(opts.target, servers, contexts, opts.connections, 4, 0.5);
      const errors = round.reduce((n, r) => n + r.errors, 0);
      if (errors) throw new Error(`round ${i + 1}: ${errors} errors (${round.flatMap((r) => r.errorSamples).join(' | ')})`);
      rounds.push(round);
    }
    const cpu = (i: number) => rounds.map((r) => r[i]!.cpuPerUnit * 1000);
    const ratios = rounds.map((r) => r[0]!.cpuPerUnit / r[1]!.cpuPerUnit);
    for (const i of [0, 1]) {
      console.log(`${'ab'[i]} ${opts.builds[i]}: ${median(cpu(i)).toFixed(1)} µs per request, p99 ${median(rounds.map((r) => r[i]!.p99)).toFixed(2)} ms (medians of ${opts.rounds} rounds)`);
    }
    console.log(
      `a/b CPU per request: ${[...ratios]
        .sort((x, y) => x - y)
        .map((r) => r.toFixed(2))
        .join(' ')}; median ${median(ratios).toFixed(3)}`,
    );
  } finally {
    for (const s of servers) await s.stop();
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
