/**
 * Every Lyceum scenario against a fresh server on one store, then (SQLite)
 * the floor scenarios on that server's database with the paced reads beside
 * their floor (without a floor, Lyceum's paced reads alone), then the scale test and
 * (SQLite) the memory figure, each on a server of its own.
 */
import type { StoreRun } from './budgets.ts';
import type { StoreKind } from './data.ts';
import { benchFloor } from './floor-run.ts';
import { onFreshLyceum } from './fresh-lyceum.ts';
import { measure } from './measure.ts';
import { benchPaced } from './paced.ts';
import type { Options } from './options.ts';
import { LYCEUM_SCENARIOS, prepareServer } from './scenarios.ts';
import { benchScale } from './scale.ts';
import { benchMemory } from './memory.ts';

/** `argon2Concurrency`: the verifications in flight at which argon2id alone was fastest (the concurrent flow's limit). */
export async function benchStore(kind: StoreKind, opts: Options, dir: string, argon2Concurrency: number): Promise<StoreRun> {
  const run: StoreRun = { results: new Map() };
  await onFreshLyceum(kind, dir, 'main', async (server, _db, logDir) => {
    console.log(`${kind}: server ${server.url} (pid ${server.pid}, log ${server.logFile})`);
    const ctx = await prepareServer(server.url, opts.connections * 2);
    for (const scenario of LYCEUM_SCENARIOS) {
      if (opts.only && !opts.only.includes(scenario.id)) continue;
      run.results.set(scenario.id, await measure(scenario, opts, server, ctx, kind));
    }
    // The budgets are the SQLite store's, so is their floor; the paced reads run beside it.
    if (kind === 'sqlite') {
      const floor = await benchFloor(opts, server, ctx, logDir, argon2Concurrency);
      for (const [id, r] of floor.results) run.results.set(id, r);
      run.rounds = floor.rounds;
      run.saturatedRounds = floor.saturatedRounds;
      run.flowRounds = floor.flowRounds;
      run.work = floor.work;
      run.paced = floor.paced?.lyceum;
      run.floorPaced = floor.paced?.floor;
      run.notes = [...(run.notes ?? []), ...floor.notes];
    }
    // Without a floor (PostgreSQL, or an --only run that starts none): Lyceum's rounds alone.
    run.paced ??= (await benchPaced(LYCEUM_SCENARIOS, opts, [{ tag: kind, server }], ctx))[0];
  });
  // --only=purge: the purge scenario alone (on the large store, without the rounds and start runs).
  if (opts.only && !opts.only.includes('purge')) return run;
  const scale = await benchScale(kind, opts, dir);
  Object.assign(run, scale, { notes: [...(run.notes ?? []), ...(scale.notes ?? [])] });
  // The memory budget is the SQLite store's (with its floor); PostgreSQL skips it to keep the run short.
  if (opts.issuedTokens > 0 && kind === 'sqlite' && !opts.only) run.memory = await benchMemory(kind, opts, dir);
  return run;
}
