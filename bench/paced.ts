/**
 * The reads at a steady rate well below saturation. With every connection
 * kept busy, latency is queueing: mean latency = connections / throughput
 * (Little's law), so a p99 at 50 saturating connections restates the
 * throughput. At a paced rate the latency is what one request costs a caller
 * when the server is not overloaded.
 */
import type { LoadResult } from './load.ts';
import { runPaced } from './paced-load.ts';
import { describe } from './measure.ts';
import type { Options } from './options.ts';
import type { Scenario, ServerContext } from './scenarios.ts';

export const PACED_IDS = ['discovery', 'catalog', 'bearer-read', 'userinfo'] as const;

export async function benchPaced(scenarios: readonly Scenario[], opts: Options, server: { url: string; pid: number }, ctx: ServerContext, tag: string): Promise<Map<string, LoadResult>> {
  const out = new Map<string, LoadResult>();
  for (const scenario of scenarios) {
    if (!(PACED_IDS as readonly string[]).includes(scenario.id) || (opts.only && !opts.only.includes(scenario.id))) continue;
    const prepared = await scenario.prepare(ctx);
    if ('skip' in prepared) continue;
    const r = await runPaced({
      origin: server.url,
      connections: opts.paced.connections,
      duration: opts.duration,
      warmup: opts.warmup,
      request: prepared.requests[0]!,
      pid: server.pid,
      rate: opts.paced.rate,
    });
    console.log(`  ${tag} ${describe(`${scenario.label} at ${opts.paced.rate} req/s`, r)}`);
    out.set(scenario.id, r);
  }
  return out;
}
