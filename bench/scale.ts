/**
 * Scale with data, on servers of their own: the bearer-protected read with a
 * small and a large number of live tokens (two stores, measured in
 * alternating rounds), the start time on the large store's existing
 * database, and the read while the background purge deletes many expired
 * tokens.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { alternating } from './alternate.ts';
import { startBare } from './bare.ts';
import type { StoreRun } from './budgets.ts';
import { countTokens, freshDatabase, insertTokens, userId, type Database, type StoreKind } from './data.ts';
import { runLoad, type LoadRequest, type LoadResult } from './load.ts';
import { pacedRun, type PacedRounds } from './paced.ts';
import { addBenchUser, BENCH_USER, startLyceum, type LyceumServer } from './lyceum-server.ts';
import { describe } from './measure.ts';
import { Browser, obtainTokenSets, registerClient } from './oauth-client.ts';
import type { Options } from './options.ts';

const DAY = 24 * 3600 * 1000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface PurgeLine {
  time: number;
  tokens: number;
  ms: number;
}

function purgeLines(logFile: string): PurgeLine[] {
  const out: PurgeLine[] = [];
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    if (!line.includes('"event":"purge"')) continue;
    const j = JSON.parse(line) as PurgeLine;
    out.push({ time: j.time, tokens: j.tokens, ms: j.ms });
  }
  return out;
}

/** A Lyceum server on `db` with a signed-in reader: the bearer read's request and the rows to insert tokens for. */
async function readerOn(db: Database, logDir: string) {
  await addBenchUser(db.url);
  const server = await startLyceum(db.url, logDir);
  const browser = new Browser(server.url);
  await browser.signIn(BENCH_USER);
  const clientId = await registerClient(server.url);
  const [reader] = await obtainTokenSets(browser, clientId, 1);
  const rows = { clientId, userId: await userId(db, BENCH_USER.email) };
  const read: LoadRequest = { path: '/api/v1/students', headers: { authorization: `Bearer ${reader!.access_token}` } };
  return { server, rows, read };
}

/** Live tokens up to `count` (they expire in a day). */
async function fill(db: Database, count: number, rows: { clientId: string; userId: string }): Promise<number> {
  await insertTokens(db, count - (await countTokens(db)), { ...rows, expiresAt: Date.now() + DAY });
  return countTokens(db);
}

export async function benchScale(kind: StoreKind, opts: Options, dir: string): Promise<Pick<StoreRun, 'scale' | 'purge' | 'startupMs' | 'bareStartupMs' | 'notes'>> {
  const db = await freshDatabase(kind, dir);
  const smallDb = await freshDatabase(kind, dir);
  const logDir = (phase: string) => {
    const d = join(dir, `${kind}-${phase}`);
    mkdirSync(d, { recursive: true });
    return d;
  };
  const notes: string[] = [];
  let server: LyceumServer | undefined;
  let smallServer: LyceumServer | undefined;
  try {
    // Two stores side by side, each with its own server, measured in alternating rounds (the
    // order turned each round): neither is measured only while the machine was busy.
    const [small, large] = opts.scaleTokens;
    const smallReader = await readerOn(smallDb, logDir('scale-small'));
    smallServer = smallReader.server;
    const smallTokens = await fill(smallDb, small, smallReader.rows);
    const largeReader = await readerOn(db, logDir('scale'));
    server = largeReader.server;
    let started = Date.now();
    const before = await countTokens(db);
    const largeTokens = await fill(db, large, largeReader.rows);
    console.log(`  ${kind}: inserted ${largeTokens - before} tokens in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const short = { connections: opts.connections, duration: opts.rounds.seconds, warmup: opts.rounds.warmup };
    const legs = [
      { server: smallServer, read: smallReader.read, tokens: smallTokens, results: [] as LoadResult[] },
      { server, read: largeReader.read, tokens: largeTokens, results: [] as LoadResult[] },
    ];
    // Both servers were just started: one run each first, so neither is measured on a cold process.
    const rounds = opts.only ? 0 : opts.scaleRounds;
    if (rounds > 0) for (const leg of legs) await runLoad({ origin: leg.server.url, ...short, requests: [leg.read], pid: leg.server.pid });
    await alternating(rounds, legs, async (leg, round) => {
      const r = await runLoad({ origin: leg.server.url, ...short, requests: [leg.read], pid: leg.server.pid });
      leg.results.push(r);
      console.log(`  ${kind} ${describe(`round ${round + 1}: bearer read, ${leg.tokens} live tokens`, r)}`);
    });
    // The small store's server stays: its read is the control that alternates with the purge's rounds.
    const [smallRuns, largeRuns] = [legs[0]!.results, legs[1]!.results];
    // Each store's best round stands for it: on a shared machine, interference only ever slows a
    // run down, so the fastest of several is the least disturbed measure of what the server does.
    const best = (runs: LoadResult[]) => runs.reduce((a, b) => (b.rate > a.rate ? b : a));
    // The paced read in rounds (bench/paced.ts): the median p99 stands for each phase.
    const pacedRounds = async (x: LyceumServer, what: string) => {
      const runs: PacedRounds = [];
      for (let i = 0; i < opts.paced.rounds; i++) {
        const r = await pacedRun(opts, x, largeReader.read);
        console.log(`  ${kind} round ${i + 1}: ${describe(`bearer read, ${what}, at ${opts.paced.rate} req/s`, r)}`);
        runs.push(r);
      }
      return runs;
    };
    const pacedBaseline = await pacedRounds(server, `${largeTokens} live tokens`);
    await server.stop();
    server = undefined;

    // Each Lyceum start follows a start of the bare Fastify server: what starting Node.js and
    // Fastify alone costs on this machine at that moment.
    const startupMs: number[] = [];
    const bareStartupMs: number[] = [];
    for (let i = 0; i < (opts.only ? 0 : opts.startupRuns); i++) {
      const bare = await startBare(logDir('startup'));
      bareStartupMs.push(bare.startupMs);
      await bare.stop();
      const s = await startLyceum(db.url, logDir('startup'));
      startupMs.push(s.startupMs);
      await s.stop();
    }
    const list = (xs: number[]) => xs.map((x) => `${x.toFixed(0)} ms`).join(', ');
    console.log(`  ${kind}: first answer after start: ${list(startupMs)} (bare Fastify: ${list(bareStartupMs)})`);

    started = Date.now();
    await insertTokens(db, opts.expiredTokens, { ...largeReader.rows, expiresAt: Date.now() - 3 * DAY });
    console.log(`  ${kind}: inserted ${opts.expiredTokens} expired tokens in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    // The first purge runs PURGE_INTERVAL_SECONDS after the start: early in the first measured round.
    const interval = Math.max(1, Math.round(opts.paced.warmup + Math.min(2, opts.paced.seconds / 4)));
    server = await startLyceum(db.url, logDir('purge'), { PURGE_INTERVAL_SECONDS: String(interval) });
    // The purge's rounds alternate with the control's, the same read on the small store's server,
    // which has nothing to purge (bench/alternate.ts): both see the same minutes of a shared host.
    type Window = { run: LoadResult; from: number; to: number };
    const purgeLegs = [
      { what: 'while the purge runs', server, read: largeReader.read, windows: [] as Window[] },
      { what: `${smallTokens} live tokens, no purge (control)`, server: smallServer, read: smallReader.read, windows: [] as Window[] },
    ];
    await alternating(opts.paced.rounds, purgeLegs, async (leg, i) => {
      const from = Date.now() + opts.paced.warmup * 1000;
      const run = await pacedRun(opts, leg.server, leg.read);
      leg.windows.push({ run, from, to: Date.now() });
      console.log(`  ${kind} round ${i + 1}: ${describe(`bearer read, ${leg.what}, at ${opts.paced.rate} req/s`, run)}`);
    });
    const windows = purgeLegs[0]!.windows;
    const control: PacedRounds = purgeLegs[1]!.windows.map((w) => w.run);
    await smallServer.stop();
    smallServer = undefined;
    // A large purge outlasts the rounds (it yields to requests): wait for its log line.
    let main: PurgeLine | undefined;
    for (const deadline = Date.now() + 600_000; !main && Date.now() < deadline; await sleep(250)) {
      main = purgeLines(server.logFile).find((l) => l.tokens > 0);
    }
    let purged = `${opts.expiredTokens.toLocaleString('en')} expired tokens`;
    // The rounds that ran during the purge: at least half of each measured window inside it.
    let during = windows;
    if (!main) notes.push(`${kind}: no purge deleted tokens during the purge scenario (log ${server.logFile})`);
    else {
      const [start, end] = [main.time - main.ms, main.time];
      const inside = windows.filter((w) => Math.min(end, w.to) - Math.max(start, w.from) >= 0.5 * (w.to - w.from));
      const at = (t: number) => `${((t - windows[0]!.from) / 1000).toFixed(1)} s`;
      purged = `${main.tokens.toLocaleString('en')} expired tokens (${(main.ms / 1000).toFixed(1)} s, from ${at(start)} to ${at(end)} after the first round's start; ${inside.length} of ${windows.length} rounds inside it)`;
      if (inside.length === 0) notes.push(`${kind}: no paced round ran mostly during the purge (${purged}): all are kept`);
      else during = inside;
    }
    console.log(`  ${kind}: the purge deleted ${purged}`);
    // The same read on the same server once the purge is done: the read without the purge, minutes
    // nearer to the one during it than the baseline above.
    const after = main ? await pacedRounds(server, 'right after the purge') : undefined;
    return {
      ...(rounds > 0
        ? { scale: { small: best(smallRuns), large: best(largeRuns), smallTokens, largeTokens, rates: { small: smallRuns.map((r) => r.rate), large: largeRuns.map((r) => r.rate) } } }
        : {}),
      purge: { liveTokens: largeTokens, baseline: pacedBaseline, during: during.map((w) => w.run), control, controlTokens: smallTokens, ...(after ? { after } : {}), purged },
      startupMs,
      bareStartupMs,
      notes,
    };
  } finally {
    await smallServer?.stop();
    await server?.stop();
    await db.drop();
    await smallDb.drop();
  }
}

