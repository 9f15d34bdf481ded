/**
 * bench/remedies.ts through bench/budgets.ts judge(): a missed ratio or flow
 * budget says what its target allows and what would meet it, from the run's
 * figures; a met one says nothing.
 */
import { describe, expect, it } from 'vitest';
import { judge, type RatioRound, type RunFigures, type WorkCosts } from '../../bench/budgets.ts';
import { memoryNeeds, pacedNeeds, saturatedNeeds } from '../../bench/remedies.ts';
import type { LoadResult } from '../../bench/load.ts';

/** A measured load: `rate` per second at `cpuUs` µs of server CPU each (cpuPerUnit is in ms). */
const load = (rate: number, cpuUs: number) => ({ rate, cpuPerUnit: cpuUs / 1000, p50: 1, p99: 2 }) as unknown as LoadResult;

const WORK: WorkCosts = {
  sha256: 1,
  tokenRow: 6,
  userRow: 4,
  clientRow: 4,
  studentsPage: 60,
  coursesPage: 50,
  oneRowCommit: 22,
  twoRowCommit: 36,
  deriveSecret: 5,
  rs256Signature: 350,
};

function figures(rounds: Map<string, RatioRound[]>, flows: Map<string, LoadResult>, work: WorkCosts = WORK): RunFigures {
  return {
    bare: new Map(),
    argon2: { sequential: 50, best: 100, bestConcurrency: 4 },
    sqlite: { results: flows, rounds, work },
    pacedRate: 1000,
    connections: 50,
  };
}

const round = (bare: number, lyceum: number, floor: number): RatioRound => ({ bare: load(10_000, bare), lyceum: load((10_000 * bare) / lyceum, lyceum), floor: load((10_000 * bare) / floor, floor) });

describe('what a missed budget needs', () => {
  it('out of reach because of the work: the allowance, the floor, its pieces and what would meet it', () => {
    // Registration at 30 % of the bare POST: 30 µs allows 100 µs; the floor spends 120, 90 over the bare
    // route, of which the INSERT 22: without it, 68 µs would fit in the 70 µs left.
    const v = judge(figures(new Map([['registration', [round(30, 300, 120)]]]), new Map())).find((x) => x.label.startsWith('Registration'))!;
    expect(v.met).toBe(false);
    expect(v.needs).toContain('about 100 µs of server CPU per request');
    expect(v.needs).toContain('The floor spends 90 µs more than the bare route');
    expect(v.needs).toContain('a committed one-row INSERT 22 µs');
    expect(v.needs).toContain("Without those pieces the floor's 68 µs would fit against the 70 µs the target leaves: what would meet it is group commit");
  });

  it('out of reach because of HTTP: even without its pieces the floor would miss it', () => {
    const v = judge(figures(new Map([['registration', [round(30, 300, 200)]]]), new Map())).find((x) => x.label.startsWith('Registration'))!;
    expect(v.needs).toContain('The floor spends 170 µs more than the bare route');
    expect(v.needs).toContain("Even without those pieces the floor would miss it: its other work beyond the bare route's costs 148 µs against the 70 µs the target leaves");
    expect(v.needs).not.toContain('group commit');
  });

  it('pieces that cost more alone than the whole floor: no split is claimed', () => {
    // The floor spends 120 µs over the bare route, its INSERT timed alone 259 µs.
    const slowWrites = { ...WORK, oneRowCommit: 259 };
    const v = judge(figures(new Map([['registration', [round(30, 300, 150)]]]), new Map(), slowWrites)).find((x) => x.label.startsWith('Registration'))!;
    expect(v.met).toBe(false);
    expect(v.needs).toContain('the pieces cost more than the floor\'s whole extra');
    expect(v.needs).not.toMatch(/-\d+ µs/);
  });

  it('within reach: how much CPU Lyceum has to shed', () => {
    // UserInfo at 60 % of the bare GET: 30 µs allows 50 µs; the floor spends 45, Lyceum 80.
    const v = judge(figures(new Map([['userinfo', [round(30, 80, 45)]]]), new Map())).find((x) => x.label.startsWith('UserInfo'))!;
    expect(v.met).toBe(false);
    expect(v.needs).toContain('Within reach: Lyceum spends 80 µs, 35 µs more than the floor; the target needs 30 µs less.');
  });

  it('a met budget needs nothing', () => {
    const v = judge(figures(new Map([['userinfo', [round(30, 40, 35)]]]), new Map())).find((x) => x.label.startsWith('UserInfo'))!;
    expect(v.met).toBe(true);
    expect(v.needs).toBeUndefined();
  });

  it('a missed flow: the time besides argon2id its target leaves, and what the floor spends', () => {
    // One verification: 20 ms (50/s); 80 % allows 25 ms per flow. The floor spends 30 ms, Lyceum 33.
    const flows = new Map([
      ['flow-seq', load(30, 33_000)],
      ['floor-flow-seq', load(33, 30_000)],
    ]);
    const v = judge(figures(new Map(), flows)).find((x) => x.label.startsWith('Full flow, sequential'))!;
    expect(v.met).toBe(false);
    expect(v.needs).toContain('about 25.0 ms of server CPU per flow');
    expect(v.needs).toContain('The floor spends 10.0 ms besides it');
    expect(v.needs).toContain('an RS256 signature (2048-bit key) 350 µs');
  });

  it("a missed flow whose floor's server CPU fits: the time missing is outside the server", () => {
    // One verification: 20 ms (50/s); 80 % allows 25 ms per flow, 5 ms besides argon2id. The floor spends 23 ms, yet reaches 36 flows/s.
    const flows = new Map([
      ['flow-seq', load(30, 26_000)],
      ['floor-flow-seq', load(36, 23_000)],
    ]);
    const v = judge(figures(new Map(), flows)).find((x) => x.label.startsWith('Full flow, sequential'))!;
    expect(v.met).toBe(false);
    expect(v.needs).toContain('The floor spends 3.0 ms besides it');
    expect(v.needs).toContain("the time missing is not the server's but the wait between the requests: over one connection");
    expect(v.needs).not.toContain('HTTP stack');
  });

  it('a missed paced p99: how busy the requests keep a core, and whether the floor meets it', () => {
    // 1000 req/s at 0.6 ms each: 60 % of a core; the floor at 0.4 ms: 40 %.
    const within = pacedNeeds(1000, { p50: 1.2, p99: 14, cpuPerUnit: 0.6 }, { p50: 0.8, p99: 6, cpuPerUnit: 0.4 });
    expect(within).toContain("Lyceum's 600 µs per request keep one core 60 % busy, the floor's 400 µs 40 %");
    expect(within).toContain("Within reach: the floor's p99 is 6.00 ms");
    expect(pacedNeeds(1000, { p50: 1.2, p99: 14, cpuPerUnit: 0.6 }, { p50: 0.8, p99: 12, cpuPerUnit: 0.4 })).toContain("Even the floor's p99 is 12.00 ms");
  });

  it('a missed saturated p99: the mean latency by Little\'s law, and the throughput the floor\'s spread would need', () => {
    // 50 connections at 5000 req/s: a mean of 10 ms; the floor at 6250 req/s: 8 ms, its p99 of 16 ms twice that.
    const out = saturatedNeeds(50, { rate: 5000, p99: 18, cpuPerUnit: 0.19 }, { rate: 6250, p99: 16, cpuPerUnit: 0.15 });
    expect(out).toContain("the mean latency is 50 / throughput (Little's law): 10.00 ms at Lyceum's 5000 req/s (190 µs of server CPU per request), and the p99 was 1.8 times that");
    // A p99 of 10 ms at a spread of 2: a mean of 5 ms, 10,000 req/s, 100 µs per request.
    expect(out).toContain("Even the floor's p99 is 16.00 ms at 6250 req/s, 2.0 times its mean: at that spread a p99 of 10 ms needs about 10000 req/s, about 100 µs of CPU per request");
    expect(out).toContain("less than the floor's 150 µs");
    const within = saturatedNeeds(50, { rate: 5000, p99: 18, cpuPerUnit: 0.19 }, { rate: 8000, p99: 9, cpuPerUnit: 0.12 });
    expect(within).toContain("Within reach: the floor's p99 is 9.00 ms at 8000 req/s; what would meet it is Lyceum's CPU per request nearer the floor's 120 µs.");
  });

  it('a missed memory budget: what the floor grows to, and Lyceum beside it', () => {
    const out = memoryNeeds(120, { rss: 160, atStart: 110, grantsPerSecond: 1800 }, { rss: 150, atStart: 90 }, { flags: '--max-semi-space-size=1', rss: 118, grantsPerSecond: 1700 });
    expect(out).toContain('grows from 90 MB right after start to 150 MB');
    expect(out).toContain("Lyceum grows from 110 MB (its code and plugins: 20 MB more than the floor's) to 160 MB");
    expect(out).toContain('Even the floor ends 30 MB over the budget');
    expect(out).toContain('(NODE_OPTIONS=--max-semi-space-size=1), Lyceum ends at 118 MB after the same load, at 1700 grants/s against 1800 without the cap: within the budget');
    expect(memoryNeeds(120, { rss: 160, atStart: 110, grantsPerSecond: 1800 }, { rss: 100, atStart: 90 })).toContain('Within reach: Lyceum needs 40 MB less.');
  });
});
