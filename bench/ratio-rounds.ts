/**
 * The ratio budgets measured in alternating rounds: for each, its bare
 * route, the Lyceum endpoint and its floor, one after the other, several
 * times, the order turned each round. The bare route and Lyceum measured
 * minutes apart (as the main table does) see different machines on a shared
 * host: a share computed from two measurements side by side, and the median
 * over rounds, does not depend on when the neighbours were busy.
 */
import { startBare } from './bare.ts';
import { RATIO_BUDGETS, type RatioRound } from './budgets.ts';
import { FLOOR_SCENARIOS } from './floor-scenarios.ts';
import type { LoadResult } from './load.ts';
import type { LyceumServer } from './lyceum-server.ts';
import { measure } from './measure.ts';
import type { Options } from './options.ts';
import type { Spawned } from './processes.ts';
import { BARE_SCENARIOS, LYCEUM_SCENARIOS, type Scenario, type ServerContext } from './scenarios.ts';

const find = (list: Scenario[], id: string) => list.find((s) => s.id === id)!;

export async function ratioRounds(opts: Options, lyceum: LyceumServer, floor: Spawned, ctx: ServerContext, logDir: string): Promise<Map<string, RatioRound[]>> {
  const rounds = new Map<string, RatioRound[]>();
  const budgets = RATIO_BUDGETS.filter((b) => !opts.only || opts.only.includes(b.id));
  if (budgets.length === 0) return rounds;
  const bare = await startBare(logDir);
  const short: Options = { ...opts, duration: opts.rounds.seconds, warmup: opts.rounds.warmup };
  try {
    for (const b of budgets) {
      const legs: [keyof RatioRound, Scenario, { url: string; pid: number }][] = [
        ['bare', find(BARE_SCENARIOS, b.bare), bare],
        ['lyceum', find(LYCEUM_SCENARIOS, b.id), lyceum],
        ['floor', find(FLOOR_SCENARIOS, `floor-${b.id}`), floor],
      ];
      const list: RatioRound[] = [];
      for (let i = 0; i < opts.rounds.count; i++) {
        const round: Partial<Record<keyof RatioRound, LoadResult>> = {};
        for (let k = 0; k < legs.length; k++) {
          const [leg, scenario, server] = legs[(i + k) % legs.length]!;
          const r = await measure(scenario, short, server, ctx, `round ${i + 1} of ${b.id}:`);
          if ('rate' in r) round[leg] = r;
        }
        if (round.bare && round.lyceum && round.floor) list.push(round as RatioRound);
      }
      rounds.set(b.id, list);
    }
  } finally {
    await bare.stop();
  }
  return rounds;
}
