/**
 * `npm run bench [-- --smoke]`: the bare-Fastify limit, argon2id alone, then
 * every scenario against Lyceum on each store (and, on SQLite, the floor of
 * each budgeted endpoint); prints the tables and the budgets and writes
 * BENCHMARKS.md. Exits non-zero when a scenario failed
 * to run or answered with errors (budgets never change the exit code).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { argon2Rate, type Argon2Rate } from './argon2-rate.ts';
import { startBare, startStack } from './bare.ts';
import { judge, type StoreRun } from './budgets.ts';
import type { LoadResult } from './load.ts';
import { assertBuilt } from './lyceum-server.ts';
import { measure, problems } from './measure.ts';
import { parseOptions } from './options.ts';
import { buildReferenceServers } from './reference-build.ts';
import { budgetTable, describeMachine, mainTable, writeReport, type Report } from './report.ts';
import { FLOOR_SCENARIOS } from './floor-scenarios.ts';
import { BARE_SCENARIOS, LYCEUM_SCENARIOS, STACK_SCENARIOS } from './scenarios.ts';
import { benchStore } from './store-run.ts';

const ARGON2_CONCURRENCY = [1, 2, 4];

async function argon2Rates(seconds: number): Promise<Argon2Rate[]> {
  const rates = [];
  for (const concurrency of ARGON2_CONCURRENCY) rates.push(await argon2Rate(seconds, concurrency));
  console.log(`argon2id verify alone: ${rates.map((r) => `${r.perSecond.toFixed(1)}/s (${r.concurrency} in flight)`).join(', ')}`);
  return rates;
}

/** Alternating rounds by scenario id, as one list of results per leg ("<id> <leg>"). */
function byLeg<R, L extends keyof R>(rounds: Map<string, R[]> | undefined, legs: readonly L[]): [string, LoadResult[]][] {
  return [...(rounds ?? [])].flatMap(([id, list]) => legs.map((leg): [string, LoadResult[]] => [`${id} ${String(leg)}`, list.map((r) => r[leg] as LoadResult)]));
}

async function main(): Promise<number> {
  const opts = parseOptions(process.argv.slice(2));
  assertBuilt();
  await buildReferenceServers();
  const machine = describeMachine();
  console.log(`lyceum bench${opts.smoke ? ' (smoke)' : ''}: ${machine.cores} cores, ${machine.cpu}, Node ${machine.node}, load ${machine.loadBefore}`);
  const dir = mkdtempSync(join(tmpdir(), 'lyceum-bench-'));

  const bare = new Map<string, LoadResult>();
  for (const [start, scenarios] of [[startBare, BARE_SCENARIOS], [startStack, STACK_SCENARIOS]] as const) {
    const server = await start(dir);
    try {
      for (const s of scenarios) {
        if (opts.only && !opts.only.includes(s.id)) continue;
        const r = await measure(s, opts, server, undefined, 'bare');
        if ('rate' in r) bare.set(s.id, r);
      }
    } finally {
      await server.stop();
    }
  }
  const rates = opts.only && !opts.only.some((id) => /(^|-)flow-/.test(id)) ? [{ concurrency: 1, perSecond: 0 }] : await argon2Rates(opts.smoke ? 1 : 5);
  const best = rates.reduce((a, b) => (b.perSecond > a.perSecond ? b : a));

  const stores: Report['stores'] = [];
  for (const kind of opts.stores) stores.push({ kind, run: await benchStore(kind, opts, dir, best.concurrency) });

  const sqlite: StoreRun = stores.find((s) => s.kind === 'sqlite')?.run ?? { results: new Map() };
  const judged = judge({ bare, argon2: { sequential: rates.find((r) => r.concurrency === 1)!.perSecond, best: best.perSecond, bestConcurrency: best.concurrency }, sqlite, pacedRate: opts.paced.rate, connections: opts.connections });
  // --only: the budgets whose figures were measured (and their floors), for working on one path.
  const verdicts = opts.smoke ? [] : opts.only ? judged.filter((v) => v.met !== undefined) : judged;

  const failures: string[] = [];
  const selected = <T extends { id: string }>(list: readonly T[]) => list.filter((s) => !opts.only || opts.only.includes(s.id));
  for (const s of selected([...BARE_SCENARIOS, ...STACK_SCENARIOS])) failures.push(...problems(`bare ${s.id}`, bare.get(s.id), () => false));
  for (const { kind, run } of stores) {
    // The MCP scenario may be skipped until /mcp is served; nothing else may.
    for (const s of selected(LYCEUM_SCENARIOS)) failures.push(...problems(`${kind} ${s.id}`, run.results.get(s.id), (why) => s.id === 'mcp' && why.startsWith('not served yet')));
    if (kind === 'sqlite') for (const s of selected(FLOOR_SCENARIOS)) failures.push(...problems(`${kind} ${s.id}`, run.results.get(s.id), () => false));
    if (run.scale) {
      failures.push(...problems(`${kind} scale-small`, run.scale.small, () => false), ...problems(`${kind} scale-large`, run.scale.large, () => false));
    }
    // Every round: the ratio budgets', the flows', the paced reads' (Lyceum's and the floor's) and the purge's.
    const rounds: [string, LoadResult[] | undefined][] = [
      ...byLeg(run.rounds, ['bare', 'lyceum', 'floor']),
      ...byLeg(run.saturatedRounds, ['lyceum', 'floor']),
      ...byLeg(run.flowRounds, ['lyceum', 'floor']),
      ...[...(run.paced ?? [])].map(([id, rounds]) => [`paced ${id}`, rounds] as [string, LoadResult[]]),
      ...[...(run.floorPaced ?? [])].map(([id, rounds]) => [`floor paced ${id}`, rounds] as [string, LoadResult[]]),
      ['purge baseline', run.purge?.baseline],
      ['purge', run.purge?.during],
      ['purge control', run.purge?.control],
      ['purge after', run.purge?.after],
    ];
    for (const [what, runs] of rounds) for (const [i, r] of (runs ?? []).entries()) failures.push(...problems(`${kind} ${what} round ${i + 1}`, r, () => false));
  }
  const notes = [...stores.flatMap((s) => s.run.notes ?? []), ...failures];

  const report: Report = {
    machine,
    smoke: opts.smoke,
    settings: { connections: opts.connections, duration: opts.duration, warmup: opts.warmup, paced: opts.paced, rounds: opts.rounds, scaleRounds: opts.scaleRounds },
    bareScenarios: [...BARE_SCENARIOS, ...STACK_SCENARIOS],
    bare,
    floorScenarios: FLOOR_SCENARIOS,
    argon2: { rates },
    scenarios: LYCEUM_SCENARIOS,
    stores,
    verdicts,
    notes,
  };
  console.log(`\n${mainTable(report)}\n`);
  if (verdicts.length) console.log(`${budgetTable(verdicts)}\n`);
  for (const v of verdicts) if (v.needs) console.log(`what ${v.label} needs: ${v.needs}\n`);
  for (const n of notes) console.log(`note: ${n}`);
  if (opts.out) {
    writeReport(opts.out, report);
    console.log(`wrote ${opts.out}`);
  }
  if (failures.length) {
    console.error(`\nbench: ${failures.length} scenario(s) failed (logs kept in ${dir}):\n${failures.map((f) => `  ${f}`).join('\n')}`);
    return 1;
  }
  // BENCH_KEEP_LOGS=1 keeps the servers' logs (per-request lines with their response times).
  if (process.env.BENCH_KEEP_LOGS) console.log(`logs kept in ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
  console.log(opts.smoke ? 'bench smoke: every scenario ran without errors' : 'bench: done');
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : err);
    process.exit(1);
  },
);
