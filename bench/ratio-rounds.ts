/**
 * The ratio budgets measured in alternating rounds: for each, its bare
 * route, the Lyceum endpoint and its floor, one after the other, several
 * times, the order turned each round. The bare route and Lyceum measured
 * minutes apart (as the main table does) see different machines on a shared
 * host: a share computed from two measurements side by side, and the median
 * over rounds, does not depend on when the neighbours were busy.
 */
import { completeRounds } from './alternate.ts';
import { startBare } from './bare.ts';
import { RATIO_BUDGETS, type LatencyRound, type RatioRound } from './budgets.ts';
import { FLOOR_SCENARIOS } from './floor-scenarios.ts';
import type { LyceumServer } from './lyceum-server.ts';
import { roundLeg } from './measure.ts';
import { roundOptions, type Options } from './options.ts';
import { PACED_IDS } from './paced.ts';
import type { Spawned } from './processes.ts';
import { BARE_SCENARIOS, LYCEUM_SCENARIOS, type Scenario, type ServerContext } from './scenarios.ts';

const find = (list: Scenario[], id: string) => list.find((s) => s.id === id)!;

/** The ratio budgets this run judges (with --only, those whose Lyceum scenario is listed). */
export const selectedRatioBudgets = (opts: Options) => RATIO_BUDGETS.filter((b) => !opts.only || opts.only.includes(b.id));

export async function ratioRounds(opts: Options, lyceum: LyceumServer, floor: Spawned, ctx: ServerContext, logDir: string): Promise<Map<string, RatioRound[]>> {
  const rounds = new Map<string, RatioRound[]>();
  const budgets = selectedRatioBudgets(opts);
  if (budgets.length === 0) return rounds;
  const bare = await startBare(logDir);
  const short = roundOptions(opts);
  try {
    for (const b of budgets) {
      const leg = (scenario: Scenario, server: { url: string; pid: number }) => roundLeg(scenario, short, server, ctx, b.id);
      rounds.set(
        b.id,
        await completeRounds<RatioRound>(opts.rounds.count, {
          bare: leg(find(BARE_SCENARIOS, b.bare), bare),
          lyceum: leg(find(LYCEUM_SCENARIOS, b.id), lyceum),
          floor: leg(find(FLOOR_SCENARIOS, `floor-${b.id}`), floor),
        }),
      );
    }
  } finally {
    await bare.stop();
  }
  return rounds;
}

/** The reads with a saturated p99 budget and no ratio budget (the catalog) that this run judges. */
export const selectedSaturatedReads = (opts: Options) =>
  PACED_IDS.filter((id) => !RATIO_BUDGETS.some((b) => b.id === id) && (!opts.only || opts.only.includes(id)));

/**
 * Those reads' saturated p99 the way the ratio budgets' reads get theirs:
 * Lyceum and its floor in alternating rounds, so that no verdict rests on a
 * single measurement.
 */
export async function saturatedRounds(opts: Options, lyceum: LyceumServer, floor: Spawned, ctx: ServerContext): Promise<Map<string, LatencyRound[]>> {
  const rounds = new Map<string, LatencyRound[]>();
  const short = roundOptions(opts);
  for (const id of selectedSaturatedReads(opts)) {
    const leg = (scenario: Scenario, server: { url: string; pid: number }) => roundLeg(scenario, short, server, ctx, id);
    rounds.set(
      id,
      await completeRounds<LatencyRound>(opts.rounds.count, {
        lyceum: leg(find(LYCEUM_SCENARIOS, id), lyceum),
        floor: leg(find(FLOOR_SCENARIOS, `floor-${id}`), floor),
      }),
    );
  }
  return rounds;
}
