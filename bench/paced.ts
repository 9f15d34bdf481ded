/**
 * The reads at a steady rate well below saturation. With every connection
 * kept busy, latency is queueing: mean latency = connections / throughput
 * (Little's law), so a p99 at 50 saturating connections restates the
 * throughput. At a paced rate the latency is what one request costs a caller
 * when the server is not overloaded.
 *
 * A p99 is the 1 % slowest requests: one busy second of a shared host moves
 * it more than any change to the code. So each read is measured in several
 * short rounds, Lyceum and its floor one after the other with the order
 * turned each round (bench/alternate.ts), and the round with the median p99
 * stands for each: a hiccup of the host spoils one round, not the verdict.
 */
import { alternating } from './alternate.ts';
import type { LoadResult } from './load.ts';
import { runPaced } from './paced-load.ts';
import { describe } from './measure.ts';
import type { Options } from './options.ts';
import type { Scenario, ServerContext } from './scenarios.ts';

export const PACED_IDS = ['discovery', 'catalog', 'bearer-read', 'userinfo'] as const;

/** A server the paced reads run against, and the tag its lines are logged with. */
export interface PacedLeg {
  tag: string;
  server: { url: string; pid: number };
}

/** The paced runs of one read on one server, in the order measured. */
export type PacedRounds = LoadResult[];

/** The run with the median p99 (of an even count, the higher of the middle two). */
export function medianRound(rounds: readonly LoadResult[]): LoadResult {
  return [...rounds].sort((a, b) => a.p99 - b.p99)[Math.floor(rounds.length / 2)]!;
}

/** One paced run of `request` against `server`, as configured in `opts.paced`. */
export function pacedRun(opts: Options, server: { url: string; pid: number }, request: Parameters<typeof runPaced>[0]['request']): Promise<LoadResult> {
  const { rate, connections, seconds, warmup } = opts.paced;
  return runPaced({ origin: server.url, rate, connections, duration: seconds, warmup, request, pid: server.pid });
}

/** Every paced read, on every leg in alternating rounds; for each leg (same order), the rounds by scenario id. */
export async function benchPaced(scenarios: readonly Scenario[], opts: Options, legs: readonly PacedLeg[], ctx: ServerContext): Promise<Map<string, PacedRounds>[]> {
  const out = legs.map(() => new Map<string, PacedRounds>());
  for (const scenario of scenarios) {
    if (!(PACED_IDS as readonly string[]).includes(scenario.id) || (opts.only && !opts.only.includes(scenario.id))) continue;
    const prepared = await scenario.prepare(ctx);
    if ('skip' in prepared) continue;
    const request = prepared.requests[0]!;
    await alternating(
      opts.paced.rounds,
      legs.map((leg, i) => ({ leg, into: out[i]! })),
      async ({ leg, into }, round) => {
        const r = await pacedRun(opts, leg.server, request);
        console.log(`  ${leg.tag} round ${round + 1}: ${describe(`${scenario.label} at ${opts.paced.rate} req/s`, r)}`);
        into.set(scenario.id, [...(into.get(scenario.id) ?? []), r]);
      },
    );
  }
  return out;
}
