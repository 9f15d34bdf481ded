/**
 * `npm run bench [-- options]`: every scenario against the production build
 * (dist/lyceum.js) on a fresh store, SQLite and (when a PostgreSQL URL is
 * set) PostgreSQL, beside a bare Fastify route and, for registration and
 * refresh, node-oidc-provider (bench/anchor-server.ts) measured in the same run.
 * Prints one line per scenario as it goes, then the machine and a Markdown
 * table for BENCHMARKS.md. Exits non-zero when a scenario failed or
 * answered with errors.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { runLoad, type LoadRequest, type LoadResult } from './load.ts';
import { SCENARIOS, prepareServer, type Prepared } from './scenarios.ts';
import { addBenchUser, assertBuilt, BENCH_USER, freshDatabase, postgresBaseUrl, seedSchool, rssMb, startAnchor, startBare, startLyceum, type StoreKind } from './servers.ts';

const USAGE = `npm run bench -- [--smoke] [--stores=sqlite,postgres] [--only=ID,...] [--school=N] [--connections=N] [--duration=S] [--warmup=S]
  --smoke   1.5 s per scenario at 4 connections: checks that every scenario runs without errors (CI)
  --school  run on the demo school grown to N students (lyceum seed --scale N) instead of the demo school
  --only    just these scenarios: ${SCENARIOS.map((s) => s.id).join(', ')}
  PostgreSQL runs when BENCH_DATABASE_URL or TEST_DATABASE_URL is set (a fresh database is created and dropped).`;

interface Options {
  smoke: boolean;
  stores: StoreKind[];
  only: string[] | undefined;
  /** Students of the school the servers serve; undefined: the demo school. */
  school: number | undefined;
  connections: number;
  duration: number;
  warmup: number;
}

function parseOptions(argv: string[]): Options {
  const flags = new Map<string, string>();
  for (const arg of argv) {
    const m = /^--(smoke|stores|only|school|connections|duration|warmup)(?:=(.+))?$/.exec(arg);
    if (!m) throw new Error(`unknown argument ${arg}\n${USAGE}`);
    flags.set(m[1]!, m[2] ?? 'true');
  }
  const smoke = flags.has('smoke');
  const num = (name: string, fallback: number) => {
    const n = Number(flags.get(name) ?? fallback);
    if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} must be a number, 0 or more`);
    return n;
  };
  const available: StoreKind[] = postgresBaseUrl() ? ['sqlite', 'postgres'] : ['sqlite'];
  const stores = (flags.get('stores')?.split(',') ?? available) as StoreKind[];
  for (const s of stores) if (!available.includes(s)) throw new Error(`store ${s} is not available (PostgreSQL needs BENCH_DATABASE_URL or TEST_DATABASE_URL)`);
  const only = flags.get('only')?.split(',');
  for (const id of only ?? []) if (!SCENARIOS.some((s) => s.id === id)) throw new Error(`unknown scenario ${id}\n${USAGE}`);
  const school = flags.has('school') ? num('school', 0) : undefined;
  return { smoke, stores, only, school, connections: num('connections', smoke ? 4 : 50), duration: num('duration', smoke ? 1.5 : 10), warmup: num('warmup', smoke ? 0 : 2) };
}

/** Form body of the bare POST route, the size of Lyceum's form requests. */
const BARE_FORM = 'grant_type=refresh_token&refresh_token=rt_0123456789abcdefghijklmnopqrstuvwxyz012345&client_id=cl_0123456789abcdef';
const BARE: Record<'get' | 'post', { label: string; request: LoadRequest }> = {
  get: { label: 'Bare Fastify GET /', request: { path: '/' } },
  post: { label: 'Bare Fastify form POST', request: { method: 'POST', path: '/form', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: BARE_FORM } },
};

interface Row {
  label: string;
  store: string;
  result: LoadResult;
  bare?: LoadResult;
  anchor?: LoadResult;
}

/** How long a server idles after its last scenario before its RSS is read. */
const RSS_SETTLE_MS = 3000;

const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(x < 100 ? 1 : 0) : '–');
const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '–');

function line(what: string, r: LoadResult): string {
  const errors = r.errors ? `  ERRORS ${r.errors}: ${r.errorSamples.join(' | ')}` : '';
  return `  ${what}: ${f1(r.rate)}/s, p50 ${f2(r.p50)} ms, p99 ${f2(r.p99)} ms, CPU ${(r.cpuPerUnit * 1000).toFixed(0)} µs each, RSS ${r.rssPeak.toFixed(0)} MB${errors}`;
}

function table(rows: Row[]): string {
  const cells = (r: Row) => {
    const x = r.result;
    const share = r.bare ? `${((100 * x.rate) / r.bare.rate).toFixed(0)} %` : '';
    const times = r.anchor ? `${(x.rate / r.anchor.rate).toFixed(1)}×` : '';
    return [r.label, r.store, f1(x.rate), f2(x.p50), f2(x.p99), (x.cpuPerUnit * 1000).toFixed(0), x.rssPeak.toFixed(0), share, times];
  };
  const header = ['Scenario', 'Store', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'RSS MB', 'of bare req/s', 'of node-oidc-provider req/s'];
  return [header, header.map(() => '---'), ...rows.map(cells)].map((c) => `| ${c.join(' | ')} |`).join('\n');
}

function machine(opts: Options): string {
  const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8' }).trim();
  const commit = `${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--untracked-files=no') ? ' (with uncommitted changes)' : ''}`;
  const cpu = cpus();
  return [
    `${new Date().toISOString().slice(0, 10)}, commit ${commit}, Node ${process.version}`,
    `${cpu.length} cores, ${cpu[0]?.model.trim()}, ${(totalmem() / 2 ** 30).toFixed(0)} GB RAM; load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
    `autocannon in the bench process, ${opts.connections} connections (the 1-connection flow: 1), ${opts.warmup} s warm-up then ${opts.duration} s per scenario`,
  ].join('\n');
}

async function main(): Promise<number> {
  const opts = parseOptions(process.argv.slice(2));
  const schoolLabel = (store: string) => (opts.school === undefined ? store : `${store}, ${opts.school.toLocaleString('en')} students`);
  assertBuilt();
  const scenarios = SCENARIOS.filter((s) => !opts.only || opts.only.includes(s.id));
  const dir = mkdtempSync(join(tmpdir(), 'lyceum-bench-'));
  console.log(`lyceum bench${opts.smoke ? ' (smoke)' : ''}\n${machine(opts)}\nlogs in ${dir}`);
  const run = (origin: string, pid: number, requests: LoadRequest[], connections = opts.connections, completions?: () => number) =>
    runLoad({ origin, pid, requests, connections, duration: opts.duration, warmup: opts.warmup, ...(completions ? { completions } : {}) });
  // A scenario with background requests: one at a time, on a connection of their own, while its own are measured.
  const runWithBackground = async (origin: string, pid: number, prepared: Prepared, connections: number) => {
    const background = prepared.background && runLoad({ origin, pid, requests: prepared.background, connections: 1, duration: opts.duration + opts.warmup + 1, warmup: 0 });
    const measured = await run(origin, pid, prepared.requests, connections, prepared.completions);
    const loaded = await background;
    if (loaded && loaded.errors > 0) measured.errorSamples.push(...loaded.errorSamples.map((e) => `background: ${e}`));
    return loaded ? { ...measured, errors: measured.errors + loaded.errors } : measured;
  };
  const rows: Row[] = [];
  const failures: string[] = [];
  const check = (what: string, r: LoadResult) => {
    console.log(line(what, r));
    if (r.requests === 0) failures.push(`${what}: no response at all`);
    if (r.errors > 0) failures.push(`${what}: ${r.errors} errors (${r.errorSamples.join(' | ')})`);
  };

  const bare: Partial<Record<'get' | 'post', LoadResult>> = {};
  const bareServer = await startBare(join(dir, 'bare.log'));
  const starts = [`bare Fastify ${bareServer.startupMs.toFixed(0)} ms`];
  const memory: string[] = [];
  try {
    for (const kind of ['get', 'post'] as const) {
      if (!scenarios.some((s) => s.bare === kind)) continue;
      const r = (bare[kind] = await run(bareServer.url, bareServer.pid, [BARE[kind].request]));
      check(BARE[kind].label, r);
      rows.push({ label: BARE[kind].label, store: '–', result: r });
    }
  } finally {
    await bareServer.stop();
  }

  const anchor: Record<string, LoadResult> = {};
  const anchored = scenarios.filter((s) => s.anchor);
  if (anchored.length) {
    const anchorServer = await startAnchor(join(dir, 'anchor.log'));
    starts.push(`node-oidc-provider ${anchorServer.startupMs.toFixed(0)} ms`);
    try {
      for (const s of anchored) {
        const r = (anchor[s.id] = await run(anchorServer.url, anchorServer.pid, (await s.anchor!(anchorServer.url, opts.connections * 2)).requests));
        check(`node-oidc-provider ${s.id}`, r);
        rows.push({ label: s.label, store: 'node-oidc-provider, in memory', result: r });
      }
    } finally {
      await anchorServer.stop();
    }
  }

  for (const store of opts.stores) {
    const db = await freshDatabase(store, dir);
    try {
      await addBenchUser(db.url);
      if (opts.school !== undefined) {
        const started = performance.now();
        await seedSchool(db.url, opts.school);
        console.log(`${store}: seeded a school of ${opts.school} students in ${((performance.now() - started) / 1000).toFixed(0)} s`);
      }
      const server = await startLyceum(db.url, join(dir, `${store}.log`));
      try {
        console.log(`${store}: ${server.url} (pid ${server.pid})`);
        const ctx = await prepareServer(server.url, BENCH_USER, opts.connections * 2);
        const rssBefore = rssMb(server.pid);
        for (const s of scenarios) {
          try {
            const prepared = await s.prepare(ctx);
            const r = await runWithBackground(server.url, server.pid, prepared, s.connections ?? opts.connections);
            check(`${store} ${s.id}`, r);
            rows.push({ label: s.label, store: schoolLabel(store), result: r, ...(s.bare ? { bare: bare[s.bare] } : {}), ...(anchor[s.id] ? { anchor: anchor[s.id] } : {}) });
          } catch (err) {
            failures.push(`${store} ${s.id}: ${err instanceof Error ? err.message : String(err)}`);
          }
        }
        // What the process keeps once the load is over: caches and pools that grew, not garbage waiting for a collection.
        await new Promise((r) => setTimeout(r, RSS_SETTLE_MS));
        const rssAfter = rssMb(server.pid);
        memory.push(`${store} ${rssBefore.toFixed(0)} → ${rssAfter.toFixed(0)} MB (${rssAfter >= rssBefore ? '+' : ''}${(rssAfter - rssBefore).toFixed(0)})`);
      } finally {
        await server.stop();
      }
      // The first answer after a start on the database the run has just filled (no migration left to run).
      const again = await startLyceum(db.url, join(dir, `${store}.log`));
      starts.push(`${store} ${again.startupMs.toFixed(0)} ms`);
      await again.stop();
    } finally {
      await db.drop();
    }
  }

  console.log(
    `\n${machine(opts)}\nFirst answer after start: ${starts.join(', ')}\nServer RSS once prepared → ${RSS_SETTLE_MS / 1000} s after the last scenario: ${memory.join(', ')}\n\n${table(rows)}\n`,
  );
  if (failures.length) {
    console.error(`bench: ${failures.length} scenario(s) failed (logs kept in ${dir}):\n${failures.map((f) => `  ${f}`).join('\n')}`);
    return 1;
  }
  // BENCH_KEEP_LOGS=1 keeps the servers' logs.
  if (!process.env.BENCH_KEEP_LOGS) rmSync(dir, { recursive: true, force: true });
  console.log(opts.smoke ? 'bench smoke: every scenario ran without errors' : 'bench: done');
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : err);
    process.exit(1);
  },
);
