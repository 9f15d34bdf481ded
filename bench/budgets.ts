/**
 * The performance budgets (SQLite store, one process), each judged against
 * figures measured in the same run. A budget set as a share of the bare
 * route also gets its floor (bench/floor-server.ts: the endpoint's
 * unavoidable work alone) as a share of that same bare route, which says
 * whether the budget can be met on this machine at all, and Lyceum as a
 * share of the floor, which says how close it comes. The full-flow budgets
 * do the same against their argon2id rate.
 */
import type { LoadResult } from './load.ts';
import { medianRound, type PacedRounds } from './paced.ts';
import { flowNeeds, memoryNeeds, pacedNeeds, ratioNeeds, saturatedNeeds } from './remedies.ts';

export interface StoreRun {
  results: Map<string, LoadResult | { skip: string }>;
  /** The bearer read on a small and a large store: the best of each one's alternating rounds, and every round's throughput. */
  scale?: { small: LoadResult; large: LoadResult; smallTokens: number; largeTokens: number; rates: { small: number[]; large: number[] } };
  /** The reads at a steady, paced rate (options.paced), in rounds: latency without queueing behind a saturating load. */
  paced?: Map<string, PacedRounds>;
  /** The floor's answers to the same paced reads, in rounds alternating with Lyceum's (SQLite). */
  floorPaced?: Map<string, PacedRounds>;
  /**
   * The bearer read at the paced rate on the large store, in rounds: on its own server, then on the
   * purge's server while the purge runs (the rounds mostly inside it) and right after it; and the
   * control, the same read on the small store's server, in rounds alternating with the purge's.
   */
  purge?: { liveTokens: number; baseline: PacedRounds; during: PacedRounds; control: PacedRounds; controlTokens: number; after?: PacedRounds; purged: string };
  startupMs?: number[];
  /** The bare Fastify server's first answer after start, one before each of Lyceum's. */
  bareStartupMs?: number[];
  /** The ratio budgets' alternating rounds, by Lyceum scenario id (SQLite). */
  rounds?: Map<string, RatioRound[]>;
  /** The reads with a saturated p99 budget and no ratio budget (the catalog): Lyceum's and the floor's alternating rounds (SQLite). */
  saturatedRounds?: Map<string, LatencyRound[]>;
  /** The flow budgets' alternating rounds with argon2id alone, by Lyceum scenario id (SQLite). */
  flowRounds?: Map<string, FlowRound[]>;
  /** What each piece of the endpoints' work costs alone (SQLite; bench/work-costs.ts). */
  work?: WorkCosts;
  /** Lyceum's RSS after issuing tokens, and the floor's after issuing as many (SQLite). */
  memory?: { lyceum: MemoryFigure; floor?: MemoryFigure; smallYoungGeneration?: MemoryFigure & { flags: string } };
  notes?: string[];
}

/** The budgets set as a share of a bare route: the Lyceum scenario, its bare route, the least share. */
export const RATIO_BUDGETS = [
  { id: 'discovery', bare: 'bare-get', min: 0.8, what: 'Discovery' },
  { id: 'bearer-read', bare: 'bare-get', min: 0.6, what: 'Bearer-protected read' },
  { id: 'userinfo', bare: 'bare-get', min: 0.6, what: 'UserInfo' },
  { id: 'introspection', bare: 'bare-post', min: 0.5, what: 'Introspection' },
  { id: 'refresh', bare: 'bare-post', min: 0.25, what: 'Refresh grant' },
  { id: 'registration', bare: 'bare-post', min: 0.3, what: 'Registration' },
] as const;

/** Microseconds per call of each piece of the endpoints' work, alone in one process (bench/work-costs.ts). */
export interface WorkCosts {
  sha256: number;
  tokenRow: number;
  userRow: number;
  clientRow: number;
  studentsPage: number;
  coursesPage: number;
  oneRowCommit: number;
  twoRowCommit: number;
  deriveSecret: number;
  rs256Signature: number;
}

/** One alternating round of a read at the saturating load, Lyceum's and the floor's (bench/ratio-rounds.ts). */
export interface LatencyRound {
  lyceum: LoadResult;
  floor: LoadResult;
}

/** One alternating round of a ratio budget (bench/ratio-rounds.ts). */
export interface RatioRound extends LatencyRound {
  bare: LoadResult;
}

/** One alternating round of a flow budget (bench/flow-rounds.ts): argon2id verifications per second alone, and the two flows. */
export interface FlowRound {
  argon2: number;
  lyceum: LoadResult;
  floor: LoadResult;
}

export interface MemoryFigure {
  tokens: number;
  rss: number;
  /** RSS right after start, before the load. */
  atStart: number;
  /** Refresh grants per second while issuing. */
  grantsPerSecond: number;
  how: string;
}

export interface RunFigures {
  bare: Map<string, LoadResult>;
  argon2: { sequential: number; best: number; bestConcurrency: number };
  sqlite: StoreRun;
  /** Requests per second of the paced latency runs. */
  pacedRate: number;
  /** Connections of the saturating runs. */
  connections: number;
}

export interface Verdict {
  label: string;
  figure: string;
  target: string;
  met: boolean | undefined;
  /** Ratio budgets: the floor as a share of the bare route (flows: of the argon2id rate), and whether that reaches the target. */
  floor?: string;
  /** Ratio and flow budgets: Lyceum as a share of the floor, throughput and CPU per request or flow. */
  vsFloor?: string;
  /** A missed ratio or flow budget: what its target allows, what the floor's work costs, and what would meet it (bench/remedies.ts). */
  needs?: string;
}

const measured = (r: LoadResult | { skip: string } | undefined): LoadResult | undefined => (r && 'rate' in r ? r : undefined);
const pct = (x: number) => `${(x * 100).toFixed(0)} %`;
const ms = (x: number) => `${x.toFixed(2)} ms`;
/** Start times (milliseconds) as seconds: "0.574". */
export const seconds = (x: number) => (x / 1000).toFixed(3);
/** Start times (milliseconds) as a list of seconds: "0.653, 0.560 s". */
export const secondsList = (xs: number[]) => `${xs.map(seconds).join(', ')} s`;
const us = (r: LoadResult) => `${(r.cpuPerUnit * 1000).toFixed(0)} µs`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
/** The median of what `pick` finds in the sets that have it (none: undefined). */
function medianOf<T>(sets: readonly T[], pick: (set: T) => number | undefined): number | undefined {
  const xs = sets.map(pick).filter((x): x is number => x !== undefined);
  return xs.length ? median(xs) : undefined;
}
/** The p99s of some runs: "2.10, 2.40, 3.05 ms". */
const p99s = (runs: readonly LoadResult[]) => `${runs.map((r) => r.p99.toFixed(2)).join(', ')} ms`;
/** Whether the floor itself meets the target: if not, no implementation does on this machine. */
const reach = (met: boolean) => (met ? 'within reach' : '**out of reach** on this machine');
/** How a paced figure was taken: "; median of 5 rounds alternating with the floor's: 2.1, 2.4, ... ms" (one round: nothing). */
const roundsNote = (rounds: PacedRounds, alternatedWith?: PacedRounds) =>
  rounds.length > 1 ? `; median of ${rounds.length} rounds${alternatedWith?.length ? " alternating with the floor's" : ''}: ${p99s(rounds)}` : '';

/**
 * A ratio budget: from its alternating rounds when they ran (the median of
 * the shares measured side by side), else from the main table.
 */
function judgeRatio(f: RunFigures, budget: (typeof RATIO_BUDGETS)[number]): Verdict {
  const { id, bare: bareId, min, what } = budget;
  const label = `${what} ≥ ${pct(min)} of ${bareId}`;
  const rounds = f.sqlite.rounds?.get(id) ?? [];
  const single = { bare: f.bare.get(bareId), lyceum: measured(f.sqlite.results.get(id)), floor: measured(f.sqlite.results.get(`floor-${id}`)) };
  const sets = rounds.length > 0 ? rounds : [single];
  // Throughput is what the budgets compare; CPU per request says the same more steadily on a busy machine.
  const share = (of: keyof RatioRound, to: keyof RatioRound, by: 'rate' | 'cpu') =>
    medianOf(sets, (r) => (r[of] && r[to] ? (by === 'rate' ? r[of].rate / r[to].rate : r[to].cpuPerUnit / r[of].cpuPerUnit) : undefined));
  /** The median CPU per request (µs) of one of the three. */
  const cpuUs = (of: keyof RatioRound) => medianOf(sets, (r) => (r[of] ? r[of].cpuPerUnit * 1000 : undefined));
  const cpu = (of: keyof RatioRound) => {
    const x = cpuUs(of);
    return x === undefined ? '?' : `${x.toFixed(0)} µs`;
  };
  const how = rounds.length > 0 ? `median of ${rounds.length} alternating rounds` : 'main table';
  const [x, fx, lf] = [share('lyceum', 'bare', 'rate'), share('floor', 'bare', 'rate'), share('lyceum', 'floor', 'rate')];
  const verdict: Verdict = {
    label,
    figure: 'not measured',
    target: pct(min),
    met: undefined,
    floor: fx === undefined ? 'not measured' : `floor: ${pct(fx)} of ${bareId} (${how}; by CPU ${pct(share('floor', 'bare', 'cpu')!)}: ${cpu('floor')} vs ${cpu('bare')}/req): ${reach(fx >= min)}`,
    vsFloor: lf === undefined ? 'not measured' : `Lyceum: ${pct(lf)} of floor (by CPU ${pct(share('lyceum', 'floor', 'cpu')!)}: ${cpu('lyceum')} vs ${cpu('floor')}/req)`,
  };
  if (x === undefined) return verdict;
  const each = rounds.length > 0 ? `; rounds: ${rounds.map((r) => pct(r.lyceum.rate / r.bare.rate)).join(', ')}` : '';
  const main = single.lyceum && single.bare ? `; main table: ${single.lyceum.rate.toFixed(0)} / ${single.bare.rate.toFixed(0)} req/s` : '';
  const [bareCpu, floorCpu, lyceumCpu] = [cpuUs('bare'), cpuUs('floor'), cpuUs('lyceum')];
  const needs =
    x < min && fx !== undefined && bareCpu !== undefined && floorCpu !== undefined && lyceumCpu !== undefined
      ? ratioNeeds(id, { bare: bareCpu, floor: floorCpu, lyceum: lyceumCpu }, min, fx >= min, f.sqlite.work)
      : undefined;
  return { ...verdict, figure: `${pct(x)} (${how}${each}${main})`, met: x >= min, ...(needs ? { needs } : {}) };
}

export function judge(f: RunFigures): Verdict[] {
  const out: Verdict[] = [];
  const s = f.sqlite.results;
  for (const budget of RATIO_BUDGETS) out.push(judgeRatio(f, budget));

  const sequentialRounds = f.sqlite.flowRounds?.get('flow-seq') ?? [];
  const oneAtATime = sequentialRounds.length > 0 ? median(sequentialRounds.map((r) => r.argon2)) : f.argon2.sequential;
  const flow = (id: string, limit: number, what: string) => {
    // From the alternating rounds when they ran (each round's flows against argon2id alone in that
    // round), else from the main table against the argon2id rate of the run's start.
    const rounds = f.sqlite.flowRounds?.get(id) ?? [];
    const main = { lyceum: measured(s.get(id)), floor: measured(s.get(`floor-${id}`)) };
    const sets: { argon2: number; lyceum?: LoadResult; floor?: LoadResult }[] = rounds.length > 0 ? rounds : [{ argon2: limit, ...main }];
    const med = (pick: (r: (typeof sets)[number]) => number | undefined) => medianOf(sets, pick);
    const [x, fx, lf] = [med((r) => r.lyceum && r.lyceum.rate / r.argon2), med((r) => r.floor && r.floor.rate / r.argon2), med((r) => r.lyceum && r.floor && r.lyceum.rate / r.floor.rate)];
    const [rate, floorRate, argon2] = [med((r) => r.lyceum?.rate), med((r) => r.floor?.rate), med((r) => r.argon2)];
    const [cpu, floorCpu] = [med((r) => r.lyceum?.cpuPerUnit), med((r) => r.floor?.cpuPerUnit)];
    const how = rounds.length > 0 ? `median of ${rounds.length} rounds alternating with argon2id alone` : 'main table';
    // What else a flow costs: the server's CPU per flow beyond one verification (1 / the one-at-a-time
    // rate: the sequential flow's rounds' median, else the run start's).
    const argon2Ms = 1000 / oneAtATime;
    const perFlow = (x: number) => `${x.toFixed(1)} ms`;
    // As for the ratio budgets, against the same argon2id rate; by CPU: one verification's time over the CPU of a flow.
    const floorFigures: Pick<Verdict, 'floor' | 'vsFloor'> = {
      floor:
        fx !== undefined && floorCpu !== undefined
          ? `floor: ${pct(fx)} of the argon2id rate (${how}; ${floorRate!.toFixed(1)} flows/s; by CPU ${pct(argon2Ms / floorCpu)}: ${perFlow(floorCpu)} per flow vs ${argon2Ms.toFixed(1)} ms per verification): ${reach(fx >= 0.8)}`
          : 'not measured',
      vsFloor: lf !== undefined && cpu !== undefined && floorCpu !== undefined ? `Lyceum: ${pct(lf)} of floor (by CPU ${pct(floorCpu / cpu)}: ${perFlow(cpu)} vs ${perFlow(floorCpu)}/flow)` : 'not measured',
    };
    if (x === undefined || cpu === undefined) return out.push({ label: what, figure: 'not measured', target: '80 %', met: undefined, ...floorFigures });
    const each = rounds.length > 0 ? `; rounds: ${rounds.map((r) => pct(r.lyceum.rate / r.argon2)).join(', ')}` : '';
    const mainTable = rounds.length > 0 && main.lyceum ? `; main table: ${main.lyceum.rate.toFixed(1)} flows/s against ${limit.toFixed(1)} at the run's start` : '';
    const rest = cpu - argon2Ms;
    out.push({
      label: what,
      figure: `${pct(x)} (${how}: ${rate!.toFixed(1)} flows/s / ${argon2!.toFixed(1)} verifications/s${each}${mainTable}); server CPU ${perFlow(cpu)} per flow, of which about ${rest.toFixed(1)} ms besides argon2id (${argon2Ms.toFixed(1)} ms); 80 % leaves ${(argon2Ms / 4).toFixed(1)} ms for everything else, the load generator's share included`,
      target: '80 %',
      met: x >= 0.8,
      ...floorFigures,
      ...(x < 0.8 && fx !== undefined && floorCpu !== undefined ? { needs: flowNeeds(argon2Ms, { floor: floorCpu, lyceum: cpu }, fx >= 0.8, f.sqlite.work, id === 'flow-seq') } : {}),
    });
  };
  flow('flow-seq', f.argon2.sequential, 'Full flow, sequential ≥ 80 % of one-at-a-time argon2id verification');
  flow('flow-conc', f.argon2.best, `Full flow, concurrent ≥ 80 % of the best argon2id verification rate (${f.argon2.bestConcurrency} in flight)`);

  // The reads' latency, two ways: at a steady paced rate (what a caller waits when the server is not
  // overloaded), and at the saturating 50 connections, where p99 is bounded by connections / throughput.
  for (const id of ['discovery', 'catalog', 'bearer-read', 'userinfo']) {
    const [pr, fpr] = [f.sqlite.paced?.get(id), f.sqlite.floorPaced?.get(id)];
    const [p, fp] = [pr?.length ? medianRound(pr) : undefined, fpr?.length ? medianRound(fpr) : undefined];
    out.push({
      label: `p99 of ${id} ≤ 10 ms, paced at ${f.pacedRate} req/s`,
      figure: p ? `${ms(p.p99)} (p50 ${ms(p.p50)}${roundsNote(pr!, fpr)})` : 'not measured',
      target: '10 ms',
      met: p ? p.p99 <= 10 : undefined,
      ...(fp
        ? {
            floor: `floor: p99 ${ms(fp.p99)} (p50 ${ms(fp.p50)}${roundsNote(fpr!)}) at the same paced load: ${reach(fp.p99 <= 10)}`,
            ...(p ? { vsFloor: `Lyceum: p99 ${p.p99 <= fp.p99 ? 'no higher than' : `${ms(p.p99 - fp.p99)} above`} the floor's (CPU ${us(p)} vs ${us(fp)}/req)` } : {}),
            ...(p && p.p99 > 10 ? { needs: pacedNeeds(f.pacedRate, p, fp) } : {}),
          }
        : {}),
    });
    // Saturated: from the alternating rounds when they ran (the ratio budget's, or the read's own; the
    // round with the median p99 of each, Lyceum's and the floor's), else from the main table.
    const saturated: LatencyRound[] = f.sqlite.rounds?.get(id) ?? f.sqlite.saturatedRounds?.get(id) ?? [];
    const [main, mainFloor] = [measured(s.get(id)), measured(s.get(`floor-${id}`))];
    const r = saturated.length > 0 ? medianRound(saturated.map((x) => x.lyceum)) : main;
    const floor = saturated.length > 0 ? medianRound(saturated.map((x) => x.floor)) : mainFloor;
    const inRounds = (runs: LoadResult[]) => (saturated.length > 0 ? `median of ${runs.length} alternating rounds: ${p99s(runs)}; ` : '');
    const mainFigure = saturated.length > 0 && main ? `; main table: ${ms(main.p99)} at ${main.rate.toFixed(0)} req/s` : '';
    // Little's law: with every connection busy, the mean latency is connections / throughput.
    const needs = f.connections / 0.01;
    out.push({
      label: `p99 of ${id} ≤ 10 ms, saturated (${f.connections} connections)`,
      figure: r ? `${ms(r.p99)} (${inRounds(saturated.map((x) => x.lyceum))}at ${r.rate.toFixed(0)} req/s; a mean under 10 ms needs more than ${needs.toFixed(0)} req/s${mainFigure})` : 'not measured',
      target: '10 ms',
      met: r ? r.p99 <= 10 : undefined,
      ...(floor
        ? {
            floor: `floor: p99 ${ms(floor.p99)} (${inRounds(saturated.map((x) => x.floor))}at ${floor.rate.toFixed(0)} req/s): ${reach(floor.p99 <= 10)}`,
            ...(r ? { vsFloor: `Lyceum: ${pct(r.rate / floor.rate)} of the floor's throughput (by CPU ${pct(floor.cpuPerUnit / r.cpuPerUnit)}: ${us(r)} vs ${us(floor)}/req)` } : {}),
            ...(r && r.p99 > 10 ? { needs: saturatedNeeds(f.connections, r, floor) } : {}),
          }
        : {}),
    });
  }

  const scale = f.sqlite.scale;
  if (scale) {
    const diff = Math.abs(scale.large.rate - scale.small.rate) / scale.small.rate;
    const list = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');
    out.push({
      label: `Bearer read with ${scale.largeTokens.toLocaleString('en')} vs ${scale.smallTokens.toLocaleString('en')} live tokens differs ≤ 10 %`,
      figure: `${pct(diff)} (best of ${scale.rates.small.length} alternating rounds each: ${scale.large.rate.toFixed(0)} vs ${scale.small.rate.toFixed(0)} req/s; rounds: large ${list(scale.rates.large)}, small ${list(scale.rates.small)} req/s)`,
      target: '10 %',
      met: diff <= 0.1,
    });
  }
  const purge = f.sqlite.purge;
  if (purge) {
    // The floor of a stall is the same read without the purge, measured in the same minutes: the
    // control's rounds, on a server with nothing to purge, alternated with the purge's.
    const during = medianRound(purge.during);
    const quiet = medianRound(purge.control);
    const after = purge.after?.length ? medianRound(purge.after) : undefined;
    const detail = [
      roundsNote(purge.control).replace(/^; /, ''),
      `before the purge, on the large store's own server: ${ms(medianRound(purge.baseline).p99)}${roundsNote(purge.baseline)}`,
      after ? `right after it, on the purge's server: ${ms(after.p99)}${roundsNote(purge.after!)}` : '',
    ].filter(Boolean);
    out.push({
      label: `The purge does not stall requests: p99 of the bearer read, paced at ${f.pacedRate} req/s, while it runs (${purge.purged}) ≤ 10 ms`,
      figure: `${ms(during.p99)} (max ${ms(during.max)}${roundsNote(purge.during, purge.control)})`,
      target: '10 ms',
      met: during.p99 <= 10,
      // Met, the floor's reach says nothing; missed, it tells whether the purge is to blame.
      floor: `floor: the same read on a server with nothing to purge (${purge.controlTokens.toLocaleString('en')} live tokens), in rounds alternating with the purge's: p99 ${ms(quiet.p99)} (${detail.join('; ')})${during.p99 <= 10 ? '' : `: ${reach(quiet.p99 <= 10)}`}`,
      vsFloor: `Lyceum during the purge: p99 ${during.p99 <= quiet.p99 ? 'no higher than' : `${ms(during.p99 - quiet.p99)} above`} the read without it`,
    });
  }
  const startup = f.sqlite.startupMs;
  if (startup?.length) {
    const m = median(startup);
    const bare = f.sqlite.bareStartupMs ?? [];
    const b = bare.length ? median(bare) : undefined;
    out.push({
      label: 'First answer after start on an existing database ≤ 0.5 s (median)',
      figure: `${seconds(m)} s (runs: ${secondsList(startup)})`,
      target: '0.5 s',
      met: m <= 500,
      ...(b === undefined
        ? {}
        : {
            floor: `bare Fastify (Node.js and Fastify starting, one route): ${seconds(b)} s (runs: ${secondsList(bare)}, one before each of Lyceum's): ${reach(b <= 500)}`,
            vsFloor: `Lyceum: ${seconds(m - b)} s more than bare Fastify`,
          }),
    });
  }
  const memory = f.sqlite.memory;
  if (memory) {
    const { lyceum, floor, smallYoungGeneration } = memory;
    out.push({
      label: `RSS after ${lyceum.tokens.toLocaleString('en')} issued tokens ≤ 120 MB`,
      figure: `${lyceum.rss.toFixed(0)} MB (${lyceum.how})`,
      target: '120 MB',
      met: lyceum.rss <= 120,
      floor: floor
        ? `floor: ${floor.rss.toFixed(0)} MB after issuing ${floor.tokens.toLocaleString('en')} tokens the same way (${floor.how}): ${reach(floor.rss <= 120)}`
        : 'not measured',
      vsFloor: floor ? `Lyceum: ${(lyceum.rss - floor.rss).toFixed(0)} MB more than the floor` : 'not measured',
      ...(lyceum.rss > 120 && floor ? { needs: memoryNeeds(120, lyceum, floor, smallYoungGeneration) } : {}),
    });
  }
  return out;
}
