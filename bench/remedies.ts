/**
 * What a missed budget needs, from the run's own figures: the server CPU per
 * request (or flow) its target allows, what the floor spends, what the
 * pieces of that work cost alone (bench/work-costs.ts), and what would meet
 * it. When the floor meets the target, that is the CPU Lyceum has to shed;
 * when even the floor misses it, it is what the work itself would have to
 * give up, and why Lyceum does not.
 */
import type { WorkCosts } from './budgets.ts';
import type { LoadResult } from './load.ts';

type Piece = keyof WorkCosts;

/** The pieces as the report names them. */
export const PIECE_NAMES: Record<Piece, string> = {
  sha256: 'SHA-256 of the token',
  tokenRow: 'the token row',
  userRow: 'the user row',
  clientRow: 'the client row',
  studentsPage: 'the students page (21 rows read, 20 answered as JSON)',
  coursesPage: 'the courses page (21 rows read, 20 answered as JSON)',
  oneRowCommit: 'a committed one-row INSERT',
  twoRowCommit: 'a committed two-statement transaction',
  deriveSecret: 'an HMAC-derived secret',
  rs256Signature: 'an RS256 signature (2048-bit key)',
};

/** What each floor does, piece by piece (bench/floor-routes.ts, bench/floor-flow-routes.ts). */
const PIECES: Record<string, Piece[]> = {
  discovery: [],
  'bearer-read': ['sha256', 'tokenRow', 'studentsPage'],
  userinfo: ['sha256', 'tokenRow', 'userRow'],
  introspection: ['clientRow', 'sha256', 'tokenRow'],
  // Client, token and user; two derived secrets and their hashes; retire and insert in one transaction.
  refresh: ['clientRow', 'sha256', 'tokenRow', 'userRow', 'deriveSecret', 'deriveSecret', 'sha256', 'sha256', 'twoRowCommit'],
  registration: ['oneRowCommit'],
  // Register (one INSERT), authorize and consent (client and session reads), sign in (one INSERT),
  // the code and its grant (one transaction), the code grant (one transaction, one signature).
  flow: ['oneRowCommit', 'clientRow', 'clientRow', 'clientRow', 'oneRowCommit', 'twoRowCommit', 'twoRowCommit', 'sha256', 'sha256', 'rs256Signature'],
};

/**
 * Why each floor keeps its pieces of work (what they guarantee), and what
 * doing without them would take: said when a budget is out of reach.
 */
const WHY: Record<string, { keep: string; without: string }> = {
  discovery: {
    keep: 'The floor only writes Lyceum\'s discovery document, serialized once, with Lyceum\'s response headers.',
    without:
      'The document is sent with `Cache-Control: public, max-age=300`, so a caching reverse proxy or CDN in front of the instances (docs/deployment.md) answers it without reaching Lyceum.',
  },
  'bearer-read': {
    keep: 'The token\'s row is read on every request because a token revoked on one instance must be refused at once on all (no token cache, and no self-contained JWT access tokens valid until they expire); the page is read so that it is current.',
    without: 'answering from memory: a token cache and a page cache, giving up revocation at once across instances',
  },
  userinfo: {
    keep: 'The token\'s row is read on every request so that a revocation is seen at once by every instance, and the user\'s row so that the claims are current.',
    without: 'answering from memory, giving up revocation at once across instances',
  },
  introspection: {
    keep: 'RFC 7662 §2.2: "active" is the token\'s state at the time of the request, so the calling client\'s row and the token\'s are read on every request.',
    without: 'a cached answer, which would report a revoked token as active',
  },
  refresh: {
    keep: 'Each grant retires the presented refresh token and stores its successors in one committed transaction, so that exactly one successor exists when requests race and a killed process loses no grant (RFC 9700 §4.14.2, refresh token rotation).',
    without: 'group commit (several grants in one transaction, each answered when the shared commit ends), which adds latency to every grant',
  },
  registration: {
    keep: 'Each registration is one INSERT, committed before the answer, so the client_id it returns (RFC 7591 §3.2.1) works at once on any instance.',
    without: 'group commit (several registrations in one transaction, each answered when the shared commit ends), which adds latency to every registration',
  },
  flow: {
    keep: 'argon2id at Lyceum\'s parameters (src/users/passwords.ts) is the limit itself, and the ID token\'s RS256 signature is the one algorithm every client supports (OpenID Connect Discovery 1.0 §3: RS256 must be listed).',
    without: 'fewer commits or a cheaper signature',
  },
};

/**
 * The sentence that says what would meet an out-of-reach target: whether
 * the floor's pieces of work or its HTTP handling alone already exceed what
 * the target leaves, and so what would have to go.
 */
function outOfReach(id: string, room: number, rest: number, sum: number | undefined, format: (x: number) => string): string {
  const why = WHY[id];
  if (!why) return '';
  const scale = `against the ${format(room)} the target leaves`;
  // Timed alone, after the floor's runs, the pieces can cost more than the floor's whole extra
  // when the database answered slower then (a busy disk): the split is then unknown.
  if (sum !== undefined && rest < 0) {
    return `${why.keep} Timed alone after the floor's runs, the pieces cost more than the floor's whole extra (the database answered slower then), so this run does not tell whether they or the rest would have to go.`;
  }
  if (sum === undefined || rest > room) {
    const alone = sum === undefined ? `Its other work beyond the bare route's costs ${format(rest)}` : `Even without those pieces the floor would miss it: its other work beyond the bare route's costs ${format(rest)}`;
    const http = `${alone} ${scale} (a larger request and answer with Lyceum's response headers, and garbage collection). What would meet it is an HTTP stack cheaper than Node's with Fastify on this machine.`;
    return `${why.keep} ${http}${id === 'discovery' ? ` ${why.without}` : ''}`;
  }
  return `${why.keep} Without those pieces the floor's ${format(rest)} would fit ${scale}: what would meet it is ${why.without}.`;
}

const us = (x: number) => `${x.toFixed(0)} µs`;
const ms = (x: number) => `${x.toFixed(1)} ms`;

/** The pieces of `of`, their costs alone, and their sum (µs), from the run's work costs. */
function pieces(of: string, work: WorkCosts | undefined, format: (x: number) => string): { text: string; sum: number } | undefined {
  const list = PIECES[of];
  if (!work || !list || list.length === 0) return undefined;
  const counts = new Map<Piece, number>();
  for (const p of list) counts.set(p, (counts.get(p) ?? 0) + 1);
  const sum = list.reduce((a, p) => a + work[p], 0);
  const parts = [...counts].map(([p, n]) => `${n > 1 ? `${n} × ` : ''}${PIECE_NAMES[p]} ${format(work[p])}`);
  return { text: `${parts.join(', ')}: ${format(sum)} in all, measured alone in one process`, sum };
}

/**
 * A missed ratio budget: CPU per request of the bare route, the floor and
 * Lyceum (medians, µs), the target share; `floorMeets` from the floor's
 * throughput share.
 */
export function ratioNeeds(id: string, cpu: { bare: number; floor: number; lyceum: number }, min: number, floorMeets: boolean, work: WorkCosts | undefined): string {
  const allowed = cpu.bare / min;
  const room = allowed - cpu.bare;
  const extra = cpu.floor - cpu.bare;
  const head = `The target allows about ${us(allowed)} of server CPU per request (the bare route's ${us(cpu.bare)} / ${min}): ${us(room)} more than the bare route. The floor spends ${us(extra)} more than the bare route`;
  const work_ = pieces(id, work, us);
  const detail = work_ ? `; its pieces: ${work_.text}.` : '.';
  if (floorMeets) return `${head}${detail} Within reach: Lyceum spends ${us(cpu.lyceum)}, ${us(cpu.lyceum - cpu.floor)} more than the floor; the target needs ${us(Math.max(0, cpu.lyceum - allowed))} less.`;
  return `${head}${detail} ${outOfReach(id, room, extra - (work_?.sum ?? 0), work_?.sum, us)}`.trim();
}

/**
 * A missed full-flow budget: one verification's time, the floor's and
 * Lyceum's CPU per flow (ms); `sequential` for the flow over one connection.
 */
export function flowNeeds(argon2Ms: number, cpu: { floor: number; lyceum: number }, floorMeets: boolean, work: WorkCosts | undefined, sequential = false): string {
  const allowed = argon2Ms / 0.8;
  const room = allowed - argon2Ms;
  const extra = cpu.floor - argon2Ms;
  const work_ = pieces('flow', work, us);
  const head = `The target allows about ${ms(allowed)} of server CPU per flow (one verification's ${ms(argon2Ms)} / 0.8): ${ms(room)} besides argon2id. The floor spends ${ms(extra)} besides it${work_ ? `; its pieces besides argon2id: ${work_.text} (${ms(work_.sum / 1000)})` : ''}.`;
  if (floorMeets) return `${head} Within reach: Lyceum spends ${ms(cpu.lyceum - cpu.floor)} per flow more than the floor; the target needs ${ms(Math.max(0, cpu.lyceum - allowed))} less.`;
  // The floor's server CPU fits, yet its rate misses: what is missing is time outside the server.
  if (extra <= room) {
    const where = sequential
      ? 'the wait between the requests: over one connection each of the six requests goes out only once the load generator, on the same two cores, has read the answer before it, and the server idles meanwhile'
      : "the load generator's, which runs on the same two cores as the server";
    return `${head} The floor's server CPU per flow would fit, yet its flows miss the rate: the time missing is not the server's but ${where}. What would meet it is the load generated from other cores than the server's (another machine), not less work in the server.`;
  }
  return `${head} ${outOfReach('flow', room, extra - (work_ ? work_.sum / 1000 : 0), work_ ? work_.sum / 1000 : undefined, ms)}`;
}

/**
 * A missed paced p99: Lyceum's and the floor's answers to the same steady
 * load (p50 and p99 in ms, CPU per request in ms), at `rate` per second.
 */
type PacedLoad = Pick<LoadResult, 'p50' | 'p99' | 'cpuPerUnit'>;

export function pacedNeeds(rate: number, lyceum: PacedLoad, floor: PacedLoad): string {
  // The share of one core the requests keep busy: rate × CPU per request.
  const busy = (cpu: number) => `${((rate * cpu) / 10).toFixed(0)} %`;
  const one = `A request alone takes about ${lyceum.p50.toFixed(2)} ms (p50); the p99 is the wait behind other requests and garbage collection. At ${rate} req/s Lyceum's ${(lyceum.cpuPerUnit * 1000).toFixed(0)} µs per request keep one core ${busy(lyceum.cpuPerUnit)} busy, the floor's ${(floor.cpuPerUnit * 1000).toFixed(0)} µs ${busy(floor.cpuPerUnit)}.`;
  if (floor.p99 <= 10) return `${one} Within reach: the floor's p99 is ${floor.p99.toFixed(2)} ms at the same load; what would meet it is Lyceum's CPU per request nearer the floor's.`;
  return `${one} Even the floor's p99 is ${floor.p99.toFixed(2)} ms at the same load on this machine, where the load generator shares the two cores with the server: what would meet it is less CPU per request than the floor's, which does only the read's own work.`;
}

/**
 * A missed saturated p99: Lyceum's and the floor's answers with `connections`
 * kept busy (rate per second, p99 in ms, CPU per request in ms).
 */
type SaturatedLoad = Pick<LoadResult, 'rate' | 'p99' | 'cpuPerUnit'>;

export function saturatedNeeds(connections: number, lyceum: SaturatedLoad, floor: SaturatedLoad): string {
  // Little's law: with every connection waiting, the mean latency is connections / throughput.
  const mean = (x: SaturatedLoad) => (connections / x.rate) * 1000;
  const one = `With ${connections} connections always waiting, the mean latency is ${connections} / throughput (Little's law): ${mean(lyceum).toFixed(2)} ms at Lyceum's ${lyceum.rate.toFixed(0)} req/s (${(lyceum.cpuPerUnit * 1000).toFixed(0)} µs of server CPU per request), and the p99 was ${(lyceum.p99 / mean(lyceum)).toFixed(1)} times that.`;
  if (floor.p99 <= 10) return `${one} Within reach: the floor's p99 is ${floor.p99.toFixed(2)} ms at ${floor.rate.toFixed(0)} req/s; what would meet it is Lyceum's CPU per request nearer the floor's ${(floor.cpuPerUnit * 1000).toFixed(0)} µs.`;
  // The throughput at which the floor's own p99-to-mean ratio gives a p99 of 10 ms, and the CPU per request that allows it on the one thread that serves.
  const rate = (connections * 1000 * (floor.p99 / mean(floor))) / 10;
  return `${one} Even the floor's p99 is ${floor.p99.toFixed(2)} ms at ${floor.rate.toFixed(0)} req/s, ${(floor.p99 / mean(floor)).toFixed(1)} times its mean: at that spread a p99 of 10 ms needs about ${rate.toFixed(0)} req/s, about ${(1e6 / rate).toFixed(0)} µs of CPU per request on the thread that serves, less than the floor's ${(floor.cpuPerUnit * 1000).toFixed(0)} µs, which does only the read's own work. What would meet it is fewer connections waiting on one process (more instances behind the load balancer, docs/deployment.md), or a cheaper read than the floor's; the paced rows show the latency of the same read when the server is not saturated.`;
}

/**
 * A missed memory budget: Lyceum's and the floor's RSS right after start and
 * after issuing tokens (MB), and Lyceum's with V8's young generation capped.
 */
export function memoryNeeds(
  limit: number,
  lyceum: { rss: number; atStart: number; grantsPerSecond: number },
  floor: { rss: number; atStart: number },
  small?: { flags: string; rss: number; grantsPerSecond: number },
): string {
  const mb = (x: number) => `${x.toFixed(0)} MB`;
  const growth = `The floor, issuing as many tokens with nothing but Fastify and better-sqlite3, grows from ${mb(floor.atStart)} right after start to ${mb(floor.rss)}: what the V8 heap and SQLite's page cache grow to under a sustained load of refresh grants, and keep. Lyceum grows from ${mb(lyceum.atStart)} (its code and plugins: ${mb(lyceum.atStart - floor.atStart)} more than the floor's) to ${mb(lyceum.rss)}.`;
  const capped = small
    ? ` With V8's young generation capped (NODE_OPTIONS=${small.flags}), Lyceum ends at ${mb(small.rss)} after the same load, at ${small.grantsPerSecond.toFixed(0)} grants/s against ${lyceum.grantsPerSecond.toFixed(0)} without the cap: ${small.rss <= limit ? 'within the budget' : `still ${mb(small.rss - limit)} over`}.`
    : '';
  if (floor.rss <= limit) return `${growth} Within reach: Lyceum needs ${mb(lyceum.rss - limit)} less.${capped}`;
  return `${growth} Even the floor ends ${mb(floor.rss - limit)} over the budget, so what would meet it is not less work but a smaller heap.${capped}`;
}
