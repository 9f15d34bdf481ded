/**
 * The full-flow budgets in alternating rounds: argon2id verification alone
 * (one in flight for the sequential flow, the run's best count for the
 * concurrent one), Lyceum's flow and the floor's, one after the other,
 * several times, the order turned each round. The argon2id rate measured at
 * the start of the run and a flow measured many minutes later see different
 * machines on a shared host; a share of two measurements side by side, and
 * the median over rounds, does not depend on when the neighbours were busy.
 */
import { completeRounds } from './alternate.ts';
import { argon2Rate } from './argon2-rate.ts';
import type { FlowRound } from './budgets.ts';
import { FLOOR_SCENARIOS } from './floor-scenarios.ts';
import { roundLeg } from './measure.ts';
import { roundOptions, type Options } from './options.ts';
import { LYCEUM_SCENARIOS, type ServerContext } from './scenarios.ts';

/** The flow budgets, by Lyceum scenario id: one argon2id verification in flight, or the run's best count. */
export const FLOW_IDS = ['flow-seq', 'flow-conc'] as const;

/** The flow budgets this run judges in rounds (with --only, those whose Lyceum scenario is listed). */
export const selectedFlows = (opts: Options) => FLOW_IDS.filter((id) => !opts.only || opts.only.includes(id));

type Server = { url: string; pid: number };

export async function flowRounds(opts: Options, lyceum: Server, floor: Server, ctx: ServerContext, argon2Concurrency: number): Promise<Map<string, FlowRound[]>> {
  const rounds = new Map<string, FlowRound[]>();
  const short = roundOptions(opts);
  for (const id of selectedFlows(opts)) {
    const concurrency = id === 'flow-seq' ? 1 : argon2Concurrency;
    rounds.set(
      id,
      await completeRounds<FlowRound>(opts.rounds.count, {
        argon2: async (i) => {
          const { perSecond } = await argon2Rate(opts.rounds.seconds, concurrency);
          console.log(`  round ${i + 1} of ${id}: argon2id verify alone, ${concurrency} in flight: ${perSecond.toFixed(1)}/s`);
          return perSecond;
        },
        lyceum: roundLeg(LYCEUM_SCENARIOS.find((s) => s.id === id)!, short, lyceum, ctx, id),
        floor: roundLeg(FLOOR_SCENARIOS.find((s) => s.id === `floor-${id}`)!, short, floor, ctx, id),
      }),
    );
  }
  return rounds;
}
