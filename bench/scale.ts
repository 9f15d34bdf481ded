/**
 * Scale with data, on a server of its own: the bearer-protected read with a
 * small and a large number of live tokens, the start time on that existing
 * database, and the read while the background purge deletes many expired
 * tokens.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StoreRun } from './budgets.ts';
import { countTokens, freshDatabase, insertTokens, userId, type StoreKind } from './data.ts';
import { runLoad, type LoadRequest } from './load.ts';
import { runPaced } from './paced-load.ts';
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

export async function benchScale(kind: StoreKind, opts: Options, dir: string): Promise<Pick<StoreRun, 'scale' | 'purge' | 'startupMs' | 'notes'>> {
  const db = await freshDatabase(kind, dir);
  const logDir = (phase: string) => {
    const d = join(dir, `${kind}-${phase}`);
    mkdirSync(d, { recursive: true });
    return d;
  };
  const notes: string[] = [];
  let server: LyceumServer | undefined;
  try {
    await addBenchUser(db.url);
    server = await startLyceum(db.url, logDir('scale'));
    const browser = new Browser(server.url);
    await browser.signIn(BENCH_USER);
    const clientId = await registerClient(server.url);
    const [reader] = await obtainTokenSets(browser, clientId, 1);
    const rows = { clientId, userId: await userId(db, BENCH_USER.email) };
    const read: LoadRequest[] = [{ path: '/api/v1/students', headers: { authorization: `Bearer ${reader!.access_token}` } }];
    const load = (s: LyceumServer) => runLoad({ origin: s.url, connections: opts.connections, duration: opts.duration, warmup: opts.warmup, requests: read, pid: s.pid });
    // The purge is judged at a steady rate: a stall shows as latency, not hidden behind a saturating load's queue.
    const paced = (s: LyceumServer) => runPaced({ origin: s.url, connections: opts.paced.connections, duration: opts.duration, warmup: opts.warmup, request: read[0]!, pid: s.pid, rate: opts.paced.rate });

    const [small, large] = opts.scaleTokens;
    await insertTokens(db, small - (await countTokens(db)), { ...rows, expiresAt: Date.now() + DAY });
    const smallTokens = await countTokens(db);
    // This server was just started: one run first, so the small store is not measured on a cold process.
    await load(server);
    const smallResult = await load(server);
    console.log(`  ${kind} ${describe(`bearer read, ${smallTokens} live tokens`, smallResult)}`);
    let started = Date.now();
    await insertTokens(db, large - smallTokens, { ...rows, expiresAt: Date.now() + DAY });
    const largeTokens = await countTokens(db);
    console.log(`  ${kind}: inserted ${largeTokens - smallTokens} tokens in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const largeResult = await load(server);
    console.log(`  ${kind} ${describe(`bearer read, ${largeTokens} live tokens`, largeResult)}`);
    const pacedBaseline = await paced(server);
    console.log(`  ${kind} ${describe(`bearer read, ${largeTokens} live tokens, at ${opts.paced.rate} req/s`, pacedBaseline)}`);
    await server.stop();
    server = undefined;

    const startupMs: number[] = [];
    for (let i = 0; i < opts.startupRuns; i++) {
      const s = await startLyceum(db.url, logDir('startup'));
      startupMs.push(s.startupMs);
      await s.stop();
    }
    console.log(`  ${kind}: first answer after start: ${startupMs.map((x) => `${x.toFixed(0)} ms`).join(', ')}`);

    started = Date.now();
    await insertTokens(db, opts.expiredTokens, { ...rows, expiresAt: Date.now() - 3 * DAY });
    console.log(`  ${kind}: inserted ${opts.expiredTokens} expired tokens in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    // The first purge runs PURGE_INTERVAL_SECONDS after the start: early in the measured window.
    const interval = Math.max(1, Math.round(opts.warmup + Math.min(2, opts.duration / 4)));
    server = await startLyceum(db.url, logDir('purge'), { PURGE_INTERVAL_SECONDS: String(interval) });
    const windowStart = Date.now() + opts.warmup * 1000;
    const during = await paced(server);
    const windowEnd = Date.now();
    // A large purge outlasts the window (it yields to requests): wait for its log line.
    let main: PurgeLine | undefined;
    for (const deadline = Date.now() + 180_000; !main && Date.now() < deadline; await sleep(250)) {
      main = purgeLines(server.logFile).find((l) => l.tokens > 0);
    }
    let purged = `${opts.expiredTokens.toLocaleString('en')} expired tokens`;
    if (!main) notes.push(`${kind}: no purge deleted tokens during the purge scenario (log ${server.logFile})`);
    else {
      const from = (main.time - main.ms - windowStart) / 1000;
      const to = (main.time - windowStart) / 1000;
      const window = (windowEnd - windowStart) / 1000;
      purged = `${main.tokens.toLocaleString('en')} expired tokens (${(main.ms / 1000).toFixed(1)} s, from ${from.toFixed(1)} s to ${to.toFixed(1)} s of the ${window.toFixed(0)} s window)`;
      if (from > 0.5 * window || to < 0.5 * window) notes.push(`${kind}: the purge covered less than half of the measured window (${purged})`);
    }
    console.log(`  ${kind} ${describe(`bearer read at ${opts.paced.rate} req/s while purging ${purged}`, during)}`);
    return {
      scale: { small: smallResult, large: largeResult, smallTokens, largeTokens },
      purge: { baseline: pacedBaseline, during, purged },
      startupMs,
      notes,
    };
  } finally {
    await server?.stop();
    await db.drop();
  }
}

