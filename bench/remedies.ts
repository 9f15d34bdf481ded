/**
 * What a missed budget needs, from the run's own figures: the server CPU per
 * request (or flow) its target allows, what the floor spends, what the
 * pieces of that work cost alone (bench/work-costs.ts), and what would meet
 * it. When the floor meets the target, that is the CPU Lyceum has to shed;
 * when even the floor misses it, it is what the work itself would have to
 * give up, and why Lyceum does not.
 */
import type { WorkCosts } from './budgets.ts';

type Piece = keyof WorkCosts;

const PIECE_NAMES: Record<Piece, string> = {
  sha256: 'SHA-256 of the token',
  tokenRow: 'the token row',
  userRow: 'the user row',
  clientRow: 'the client row',
  studentsPage: 'the students page (21 rows, to JSON)',
  coursesPage: 'the courses page (21 rows, to JSON)',
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

/** Why the floor stays below the target, and what would meet it (stated only when the floor misses it). */
const OUT_OF_REACH: Record<string, string> = {
  discovery:
    'The floor only writes Lyceum\'s discovery document, serialized once, with Lyceum\'s headers; the bare GET of the same document without them (a reference row) shows what the body alone costs. Nothing is left in Lyceum\'s work to remove. What meets it is not reaching Lyceum for each request: the document is sent with `Cache-Control: public, max-age=300`, so a caching reverse proxy or CDN in front of the instances (docs/deployment.md) answers it at its own speed.',
  'bearer-read':
    'Each request reads its token\'s row, because a token revoked on one instance must be refused at once on all (so no token cache, and no self-contained JWT access tokens that stay valid until they expire), then the page\'s rows. Meeting the target would mean answering from memory, and giving up that guarantee.',
  userinfo:
    'Each request reads its token\'s row (revocation is seen at once by every instance) and the user\'s row (the claims are current, not a copy from sign-in). Meeting the target would mean answering from memory, and giving up both.',
  introspection:
    'RFC 7662 §2.2: "active" is the token\'s state at the time of the request, so each request reads the calling client\'s row and the token\'s. A cached answer would report a revoked token as active.',
  refresh:
    'Each grant retires the presented refresh token and stores its successors in one committed transaction, so that exactly one successor exists when requests race and a killed process loses no grant (RFC 9700 §4.14.2, refresh token rotation). What would meet it is group commit: several grants in one transaction, each answered when the shared commit ends, which adds latency to every grant.',
  registration:
    'Each registration is one committed INSERT, so the client can be used at once on any instance (RFC 7591 §3.2.1). What would meet it is group commit: several registrations in one transaction, each answered when the shared commit ends, which adds latency to every registration.',
  flow:
    'argon2id verification at Lyceum\'s parameters (src/users/passwords.ts) is the limit; 80 % of its rate leaves a quarter of one verification for the six requests, their four commits and the ID token\'s RS256 signature (OpenID Connect Discovery 1.0 §3: RS256 must be supported). Cheaper argon2id parameters would not help (they raise the limit just as much), and the six requests are the flow itself (RFC 7591 registration, RFC 6749 §4.1 authorization request, sign-in, consent, code grant). What would meet it is HTTP handling cheaper than Fastify\'s on this machine.',
};

const us = (x: number) => `${x.toFixed(0)} µs`;
const msOf = (x: number) => `${(x / 1000).toFixed(1)} ms`;

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
  const head = `The target allows about ${us(allowed)} of server CPU per request (the bare route's ${us(cpu.bare)} / ${min}), ${us(allowed - cpu.bare)} more than the bare route's HTTP handling. The floor spends ${us(cpu.floor - cpu.bare)} more than the bare route`;
  const work_ = pieces(id, work, us);
  const detail = work_ ? `; its pieces: ${work_.text}, the rest being the larger request and response, their JSON, and garbage collection.` : '.';
  if (floorMeets) return `${head}${detail} Within reach: Lyceum spends ${us(cpu.lyceum)}, ${us(cpu.lyceum - cpu.floor)} more than the floor; the target needs ${us(Math.max(0, cpu.lyceum - allowed))} less.`;
  return `${head}${detail} ${OUT_OF_REACH[id] ?? ''}`.trim();
}

/** A missed full-flow budget: one verification's time, the floor's and Lyceum's CPU per flow (ms). */
export function flowNeeds(argon2Ms: number, cpu: { floor: number; lyceum: number }, floorMeets: boolean, work: WorkCosts | undefined): string {
  const allowed = argon2Ms / 0.8;
  const work_ = pieces('flow', work, (x) => `${x.toFixed(0)} µs`);
  const head = `The target allows about ${allowed.toFixed(1)} ms of server CPU per flow (one verification's ${argon2Ms.toFixed(1)} ms / 0.8), ${(allowed - argon2Ms).toFixed(1)} ms besides argon2id. The floor spends ${(cpu.floor - argon2Ms).toFixed(1)} ms besides it${work_ ? `; its pieces besides argon2id: ${work_.text} (${msOf(work_.sum)}), the rest being outside these pieces: the six requests' HTTP handling, their JSON and HTML, and garbage collection` : ''}.`;
  if (floorMeets) return `${head} Within reach: Lyceum spends ${(cpu.lyceum - cpu.floor).toFixed(1)} ms per flow more than the floor; the target needs ${Math.max(0, cpu.lyceum - allowed).toFixed(1)} ms less.`;
  return `${head} ${OUT_OF_REACH.flow}`;
}
