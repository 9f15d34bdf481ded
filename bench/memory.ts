/**
 * Memory with many issued tokens, on a server of its own: RSS after start,
 * then refresh grants (each issues an access and a refresh token) until the
 * store holds the target number of tokens, then RSS once the load stopped.
 * Then the same for the floor (bench/floor-server.ts): started on the same
 * database, it issues as many tokens again through the same refresh chains,
 * so its RSS is what the same work leaves in a bare Fastify process.
 * Last, Lyceum again on a fresh store with V8's young generation capped
 * (SMALL_YOUNG_GENERATION): what the same load leaves with a smaller heap,
 * and what that costs in grants per second.
 */
import type { MemoryFigure } from './budgets.ts';
import { startFloor } from './bare.ts';
import { countTokens, type Database, type StoreKind } from './data.ts';
import { runLoad } from './load.ts';
import { onFreshLyceum } from './fresh-lyceum.ts';
import type { Options } from './options.ts';
import type { Spawned } from './processes.ts';
import { LYCEUM_SCENARIOS, prepareServer, type ServerContext } from './scenarios.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Node's flag for a 1 MB semi-space: V8 scavenges more often and keeps less memory after a burst. */
export const SMALL_YOUNG_GENERATION = '--max-semi-space-size=1';

/** Refresh grants against `server` until it issued `count` tokens (5 min at most); its RSS along the way. */
async function issueTokens(server: Spawned, ctx: ServerContext, db: Database, count: number, opts: Options): Promise<MemoryFigure> {
  const refresh = LYCEUM_SCENARIOS.find((s) => s.id === 'refresh')!;
  await sleep(1000);
  const atStart = server.rss();
  const before = await countTokens(db);
  let tokens = 0;
  let peak = 0;
  let refreshes = 0;
  let loadSeconds = 0;
  const started = Date.now();
  while (tokens < count && Date.now() - started < 300_000) {
    const prepared = await refresh.prepare(ctx);
    if ('skip' in prepared) throw new Error(prepared.skip);
    const r = await runLoad({ origin: server.url, connections: opts.connections, duration: opts.duration, warmup: 0, requests: prepared.requests, pid: server.pid });
    if (r.errors) throw new Error(`refresh grants failed while issuing tokens: ${r.errorSamples.join(' | ')}`);
    peak = Math.max(peak, r.rssPeak);
    refreshes += r.requests;
    loadSeconds += opts.duration;
    tokens = (await countTokens(db)) - before;
  }
  await sleep(2000);
  const rss = server.rss();
  // Then idle: what stays is what the process keeps, not garbage of the load V8 has not returned yet.
  const idleSeconds = opts.smoke ? 1 : 15;
  await sleep(idleSeconds * 1000);
  const settled = server.rss();
  return {
    tokens,
    rss,
    atStart,
    grantsPerSecond: refreshes / loadSeconds,
    how: `${refreshes.toLocaleString('en')} refresh grants at ${opts.connections} connections; RSS ${atStart.toFixed(0)} MB right after start, peak ${peak.toFixed(0)} MB while issuing, measured 2 s after the load stopped; ${settled.toFixed(0)} MB after ${idleSeconds} s more without requests`,
  };
}

export async function benchMemory(
  kind: StoreKind,
  opts: Options,
  dir: string,
): Promise<{ lyceum: MemoryFigure; floor?: MemoryFigure; smallYoungGeneration?: MemoryFigure & { flags: string } }> {
  const measured = await onFreshLyceum(kind, dir, 'memory', async (server, db, logDir) => {
    const ctx = await prepareServer(server.url, opts.connections * 2);
    const lyceum = await issueTokens(server, ctx, db, opts.issuedTokens, opts);
    console.log(`  ${kind} memory: ${lyceum.rss.toFixed(0)} MB after ${lyceum.tokens} issued tokens (${lyceum.how})`);
    if (kind !== 'sqlite') return { lyceum };
    // The floor serves SQLite only; Lyceum stays up, idle, to top up the refresh chains.
    const floorServer = await startFloor(logDir, server);
    try {
      const floor = await issueTokens(floorServer, ctx, db, lyceum.tokens, opts);
      console.log(`  ${kind} memory, floor: ${floor.rss.toFixed(0)} MB after ${floor.tokens} issued tokens (${floor.how})`);
      return { lyceum, floor };
    } finally {
      await floorServer.stop();
    }
  });
  if (kind !== 'sqlite') return measured;
  const smallYoungGeneration = await onFreshLyceum(
    kind,
    dir,
    'memory-small-young-generation',
    async (server, db) => issueTokens(server, await prepareServer(server.url, opts.connections * 2), db, measured.lyceum.tokens, opts),
    { NODE_OPTIONS: SMALL_YOUNG_GENERATION },
  );
  console.log(`  ${kind} memory, NODE_OPTIONS=${SMALL_YOUNG_GENERATION}: ${smallYoungGeneration.rss.toFixed(0)} MB after ${smallYoungGeneration.tokens} issued tokens (${smallYoungGeneration.how})`);
  return { ...measured, smallYoungGeneration: { ...smallYoungGeneration, flags: SMALL_YOUNG_GENERATION } };
}
