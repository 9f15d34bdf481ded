/**
 * The floor scenarios of a SQLite run, right after the Lyceum scenarios: the
 * floor server on the very database of the Lyceum server (which stays up,
 * idle, to top up the refresh chains), each scenario checked against
 * Lyceum's answer first, then measured like the Lyceum ones; then the ratio
 * budgets' alternating rounds and the catalog's at the saturating load
 * (bench/ratio-rounds.ts), the flow budgets'
 * (bench/flow-rounds.ts) and the reads at the
 * paced rate, Lyceum's and the floor's in alternating rounds (the same
 * requests: the floor serves Lyceum's paths); then, with the floor stopped,
 * what each piece of that work costs alone (bench/work-costs.ts).
 */
import { join } from 'node:path';
import { startFloor } from './bare.ts';
import type { FlowRound, LatencyRound, RatioRound, WorkCosts } from './budgets.ts';
import { floorParity } from './floor-parity.ts';
import { flowRounds, selectedFlows } from './flow-rounds.ts';
import { FLOOR_SCENARIOS } from './floor-scenarios.ts';
import type { LyceumServer } from './lyceum-server.ts';
import { measure, type Outcome } from './measure.ts';
import { benchPaced, type PacedRounds } from './paced.ts';
import type { Options } from './options.ts';
import { cpuMs, runNode } from './processes.ts';
import { ratioRounds, saturatedRounds, selectedRatioBudgets, selectedSaturatedReads } from './ratio-rounds.ts';
import { LYCEUM_SCENARIOS, type ServerContext } from './scenarios.ts';

export async function benchFloor(
  opts: Options,
  lyceum: LyceumServer,
  ctx: ServerContext,
  logDir: string,
  argon2Concurrency: number,
): Promise<{
  results: Map<string, Outcome>;
  rounds: Map<string, RatioRound[]>;
  saturatedRounds?: Map<string, LatencyRound[]>;
  flowRounds?: Map<string, FlowRound[]>;
  /** The paced reads' rounds, Lyceum's and the floor's, when the floor ran. */
  paced?: { lyceum: Map<string, PacedRounds>; floor: Map<string, PacedRounds> };
  work?: WorkCosts;
  notes: string[];
}> {
  const results = new Map<string, Outcome>();
  const notes: string[] = [];
  const selected = FLOOR_SCENARIOS.filter((s) => !opts.only || opts.only.includes(s.id));
  if (selected.length === 0 && selectedRatioBudgets(opts).length === 0 && selectedSaturatedReads(opts).length === 0 && selectedFlows(opts).length === 0) {
    return { results, rounds: new Map(), notes };
  }
  let rounds: Map<string, RatioRound[]>;
  let saturated: Map<string, LatencyRound[]>;
  let flows: Map<string, FlowRound[]>;
  let paced: { lyceum: Map<string, PacedRounds>; floor: Map<string, PacedRounds> };
  const floor = await startFloor(logDir, lyceum);
  console.log(`sqlite: floor server ${floor.url} (pid ${floor.pid}, log ${floor.logFile}) on ${lyceum.databaseUrl}`);
  try {
    for (const s of selected) {
      const differences = await floorParity(s, ctx, lyceum.url, floor.url);
      for (const d of differences) console.log(`  warning: ${d}`);
      notes.push(...differences);
      const [lyceumBefore, floorBefore] = [cpuMs(lyceum.pid), cpuMs(floor.pid)];
      results.set(s.id, await measure(s, opts, floor, ctx, 'sqlite'));
      // The idle Lyceum server's checkpointer shares the WAL with the floor's: note if it took a real part of the work.
      const [idle, busy] = [cpuMs(lyceum.pid) - lyceumBefore, cpuMs(floor.pid) - floorBefore];
      if (idle > 0.05 * busy) notes.push(`${s.id}: the idle Lyceum server used ${idle.toFixed(0)} ms of CPU meanwhile (the floor server ${busy.toFixed(0)} ms)`);
    }
    // Then the ratio budgets side by side with their bare route and their floor.
    rounds = await ratioRounds(opts, lyceum, floor, ctx, logDir);
    // The other reads with a saturated p99 budget, beside their floor.
    saturated = await saturatedRounds(opts, lyceum, floor, ctx);
    // The flows side by side with argon2id alone and their floor.
    flows = await flowRounds(opts, lyceum, floor, ctx, argon2Concurrency);
    // The paced reads beside their floor: what a caller waits at the same steady rate when only the work is done.
    const [lyceumPaced, floorPaced] = await benchPaced(LYCEUM_SCENARIOS, opts, [{ tag: 'sqlite', server: lyceum }, { tag: 'sqlite floor:', server: floor }], ctx);
    paced = { lyceum: lyceumPaced!, floor: floorPaced! };
  } finally {
    await floor.stop();
  }
  // The pieces' costs explain the budgets, which --only runs judge without them.
  const work = opts.only ? undefined : await workCosts(lyceum, ctx, opts.smoke ? 0.03 : 0.3);
  return { results, rounds, saturatedRounds: saturated, flowRounds: flows, paced, ...(work ? { work } : {}), notes };
}

async function workCosts(lyceum: LyceumServer, ctx: ServerContext, seconds: number): Promise<WorkCosts> {
  const out = await runNode(['--import', 'tsx', join(import.meta.dirname, 'work-costs.ts')], {
    WORK_DATABASE: lyceum.databaseUrl,
    WORK_TOKEN: ctx.reader.access_token,
    WORK_CLIENT_ID: ctx.clientId,
    WORK_SECONDS: String(seconds),
  });
  const costs = JSON.parse(out.trim().split('\n').at(-1)!) as WorkCosts;
  console.log(`  the work alone (µs per call): ${Object.entries(costs).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ')}`);
  return costs;
}
