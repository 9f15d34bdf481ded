import type { LoadResult } from './load.ts';
import { runLoad } from './load.ts';
import type { Options } from './options.ts';
import type { Scenario, ServerContext } from './scenarios.ts';

export type Outcome = LoadResult | { skip: string };

/** Prepares and runs one scenario against a server, printing its line. */
export async function measure(scenario: Scenario, opts: Options, server: { url: string; pid: number }, ctx: ServerContext | undefined, tag: string): Promise<Outcome> {
  const prepared = await scenario.prepare(ctx!);
  if ('skip' in prepared) {
    console.log(`  ${tag} ${scenario.label}: skipped, ${prepared.skip}`);
    return prepared;
  }
  const connections = scenario.connections ?? opts.connections;
  const result = await runLoad({
    origin: server.url,
    connections,
    duration: opts.duration,
    warmup: opts.warmup,
    requests: prepared.requests,
    pid: server.pid,
    ...(prepared.completions ? { completions: prepared.completions } : {}),
  });
  console.log(`  ${tag} ${describe(scenario.label, result, scenario.unit)}`);
  return result;
}

/** A leg of alternating rounds (bench/alternate.ts): `scenario` measured in round i, undefined when it was skipped. */
export function roundLeg(scenario: Scenario, opts: Options, server: { url: string; pid: number }, ctx: ServerContext, of: string): (round: number) => Promise<LoadResult | undefined> {
  return async (i) => {
    const r = await measure(scenario, opts, server, ctx, `round ${i + 1} of ${of}:`);
    return 'rate' in r ? r : undefined;
  };
}

export function describe(label: string, r: LoadResult, unit = 'req'): string {
  const errors = r.errors ? `  ERRORS ${r.errors}: ${r.errorSamples.join(' | ')}` : '';
  return `${label}: ${r.rate.toFixed(1)} ${unit}/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, server CPU ${(r.cpuPerUnit * 1000).toFixed(0)} µs/${unit}, RSS ${r.rssPeak.toFixed(0)} MB${errors}`;
}

/** A scenario that ran must have answered, without errors. */
export function problems(label: string, outcome: Outcome | undefined, allowSkip: (reason: string) => boolean): string[] {
  if (!outcome) return [`${label}: did not run`];
  if ('skip' in outcome) return allowSkip(outcome.skip) ? [] : [`${label}: skipped (${outcome.skip})`];
  const out: string[] = [];
  if (outcome.requests === 0) out.push(`${label}: no response at all`);
  if (outcome.errors > 0) out.push(`${label}: ${outcome.errors} errors (${outcome.errorSamples.join(' | ')})`);
  return out;
}
