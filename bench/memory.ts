/**
 * Memory with many issued tokens, on a server of its own: RSS after start,
 * then refresh grants (each issues an access and a refresh token) until the
 * store holds the target number of tokens, then RSS once the load stopped.
 */
import type { StoreRun } from './budgets.ts';
import { countTokens, type StoreKind } from './data.ts';
import { runLoad } from './load.ts';
import { onFreshLyceum } from './fresh-lyceum.ts';
import type { Options } from './options.ts';
import { LYCEUM_SCENARIOS, prepareServer } from './scenarios.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function benchMemory(kind: StoreKind, opts: Options, dir: string): Promise<StoreRun['memory']> {
  return onFreshLyceum(kind, dir, 'memory', async (server, db) => {
    await sleep(1000);
    const atStart = server.rss();
    const ctx = await prepareServer(server.url, opts.connections * 2);
    const refresh = LYCEUM_SCENARIOS.find((s) => s.id === 'refresh')!;
    let tokens = await countTokens(db);
    let peak = 0;
    let refreshes = 0;
    const started = Date.now();
    while (tokens < opts.issuedTokens && Date.now() - started < 300_000) {
      const prepared = await refresh.prepare(ctx);
      if ('skip' in prepared) return undefined;
      const r = await runLoad({ origin: server.url, connections: opts.connections, duration: opts.duration, warmup: 0, requests: prepared.requests, pid: server.pid });
      if (r.errors) throw new Error(`refresh grants failed while issuing tokens: ${r.errorSamples.join(' | ')}`);
      peak = Math.max(peak, r.rssPeak);
      refreshes += r.requests;
      tokens = await countTokens(db);
    }
    await sleep(2000);
    const rss = server.rss();
    // Then idle: what stays is what the process keeps, not garbage of the load V8 has not returned yet.
    await sleep(opts.smoke ? 1000 : 15_000);
    const settled = server.rss();
    console.log(`  ${kind} memory: ${atStart.toFixed(0)} MB after start, ${rss.toFixed(0)} MB after ${tokens} issued tokens (peak ${peak.toFixed(0)} MB; ${settled.toFixed(0)} MB after idling)`);
    return {
      tokens,
      rss,
      how: `all issued by the server: ${refreshes.toLocaleString('en')} refresh grants at ${opts.connections} connections on a fresh store; RSS ${atStart.toFixed(0)} MB right after start, peak ${peak.toFixed(0)} MB while issuing, measured 2 s after the load stopped; ${settled.toFixed(0)} MB after ${opts.smoke ? 1 : 15} s more without requests`,
    };
  });
}
