import type { StoreKind } from './data.ts';
import { postgresBaseUrl } from './data.ts';

export interface Options {
  smoke: boolean;
  stores: StoreKind[];
  connections: number;
  /** Seconds measured per scenario. */
  duration: number;
  warmup: number;
  /** Live tokens of the scale test: the small and the large store. */
  scaleTokens: [number, number];
  /** Expired tokens the purge scenario deletes. */
  expiredTokens: number;
  /**
   * The paced load of the latency figures: requests per second, over this many connections, in this
   * many rounds (bench/paced.ts) of `seconds` each after `warmup` seconds.
   */
  paced: { rate: number; connections: number; rounds: number; seconds: number; warmup: number };
  /** The ratio budgets' alternating rounds (bench/ratio-rounds.ts): how many, and seconds measured (after a warm-up) per leg. */
  rounds: { count: number; seconds: number; warmup: number };
  /** Alternating rounds of the small and the large store (bench/scale.ts), each measured like a round above. */
  scaleRounds: number;
  /** Tokens issued before the memory figure (0: skipped). */
  issuedTokens: number;
  startupRuns: number;
  /** BENCHMARKS.md, or undefined to write nothing (smoke mode unless --out is given). */
  out: string | undefined;
  /** Scenario ids to run (--only): nothing else runs and only the budgets they measure are judged. */
  only: string[] | undefined;
}

const USAGE = `npm run bench -- [--smoke] [--stores=sqlite,postgres] [--connections=N] [--duration=S] [--warmup=S] [--out=FILE] [--only=ID,...]
  --smoke   1.5 s per scenario, 4 connections, small data; checks that every scenario runs without errors
  --only    just these scenarios (ids: bare-get, discovery, userinfo, floor-userinfo, ..., purge), no scale or memory; budgets only
            where every figure was measured; for working on one path
  PostgreSQL runs when BENCH_DATABASE_URL or TEST_DATABASE_URL is set (a fresh database is created and dropped).`;

export function parseOptions(argv: string[]): Options {
  const flags = new Map<string, string>();
  for (const arg of argv) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!m) throw new Error(`unknown argument ${arg}\n${USAGE}`);
    flags.set(m[1]!, m[2] ?? 'true');
  }
  const known = ['smoke', 'stores', 'connections', 'duration', 'warmup', 'out', 'help', 'only'];
  const unknown = [...flags.keys()].filter((k) => !known.includes(k));
  if (unknown.length || flags.has('help')) throw new Error(`${unknown.length ? `unknown option --${unknown[0]}\n` : ''}${USAGE}`);
  const smoke = flags.has('smoke');
  const num = (name: string, fallback: number) => {
    const v = flags.get(name);
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number`);
    return n;
  };
  const available: StoreKind[] = postgresBaseUrl() ? ['sqlite', 'postgres'] : ['sqlite'];
  const stores = flags.has('stores') ? (flags.get('stores')!.split(',') as StoreKind[]) : available;
  for (const s of stores) if (!available.includes(s)) throw new Error(`store ${s} is not available (PostgreSQL needs BENCH_DATABASE_URL or TEST_DATABASE_URL)`);
  return {
    smoke,
    stores,
    connections: num('connections', smoke ? 4 : 50),
    duration: num('duration', smoke ? 1.5 : 10),
    warmup: flags.has('warmup') ? Number(flags.get('warmup')) : smoke ? 0 : 2,
    scaleTokens: smoke ? [1000, 20_000] : [1000, 1_000_000],
    expiredTokens: smoke ? 20_000 : 300_000,
    paced: smoke ? { rate: 100, connections: 2, rounds: 1, seconds: 2.5, warmup: 0 } : { rate: 1000, connections: 10, rounds: 5, seconds: 5, warmup: 1 },
    rounds: smoke ? { count: 1, seconds: 1, warmup: 0 } : { count: 3, seconds: 5, warmup: 1 },
    scaleRounds: smoke ? 1 : 5,
    issuedTokens: smoke ? 1000 : 100_000,
    startupRuns: smoke ? 1 : 7,
    out: flags.get('out') ?? (smoke || flags.has('only') ? undefined : 'BENCHMARKS.md'),
    only: flags.get('only')?.split(','),
  };
}

/** The options of one alternating round's leg: the run's, measured for `rounds.seconds` after `rounds.warmup`. */
export const roundOptions = (opts: Options): Options => ({ ...opts, duration: opts.rounds.seconds, warmup: opts.rounds.warmup });
