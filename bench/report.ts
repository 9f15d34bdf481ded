/**
 * The run's results as BENCHMARKS.md (and the same tables on the console).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { secondsList, type MemoryFigure, type StoreRun, type Verdict, type WorkCosts } from './budgets.ts';
import type { LoadResult } from './load.ts';
import { medianRound, type PacedRounds } from './paced.ts';
import { PIECE_NAMES } from './remedies.ts';
import type { Options } from './options.ts';
import type { Scenario } from './scenarios.ts';

export interface Machine {
  cores: number;
  cpu: string;
  memoryGb: number;
  node: string;
  date: string;
  commit: string;
  loadBefore: string;
}

export function describeMachine(): Machine {
  let cpu = cpus()[0]?.model ?? 'unknown';
  try {
    cpu = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpu;
  } catch {
    /* not Linux */
  }
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    if (execFileSync('git', ['status', '--porcelain'], { encoding: 'utf8' }).trim()) commit += ' (with uncommitted changes)';
  } catch {
    /* not a checkout */
  }
  return {
    cores: cpus().length,
    cpu,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    commit,
    loadBefore: loadavg().map((x) => x.toFixed(2)).join(' '),
  };
}

export interface Report {
  machine: Machine;
  smoke: boolean;
  settings: { connections: number; duration: number; warmup: number; paced: Options['paced']; rounds: Options['rounds']; scaleRounds: number };
  bareScenarios: Scenario[];
  bare: Map<string, LoadResult>;
  /** Measured on the SQLite store's database; their results are in its run. */
  floorScenarios: Scenario[];
  argon2: { rates: { concurrency: number; perSecond: number }[] };
  scenarios: Scenario[];
  stores: { kind: 'sqlite' | 'postgres'; run: StoreRun }[];
  verdicts: Verdict[];
  notes: string[];
}

const f0 = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : '–');
const f1 = (x: number) => (Number.isFinite(x) ? (x < 100 ? x.toFixed(1) : x.toFixed(0)) : '–');
const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '–');

const COLUMNS = ['/s', 'p50 ms', 'p99 ms', 'CPU µs', 'RSS MB'];
const EMPTY = COLUMNS.map(() => '');

function cells(r: LoadResult | { skip: string } | undefined): string[] {
  if (!r) return COLUMNS.map(() => '–');
  if ('skip' in r) return [`skipped: ${r.skip}`, ...EMPTY.slice(1)];
  const errors = r.errors ? ` (${r.errors} errors)` : '';
  return [`${f1(r.rate)}${errors}`, f2(r.p50), f2(r.p99), f0(r.cpuPerUnit * 1000), f0(r.rssPeak)];
}

function table(header: string[], rows: string[][]): string {
  const line = (c: string[]) => `| ${c.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

export function mainTable(r: Report): string {
  const kinds = r.stores.map((s) => s.kind);
  const header = ['Scenario', ...kinds.flatMap((k) => COLUMNS.map((c, i) => (i === 0 ? `${k} ${c}` : c)))];
  const rows: string[][] = [];
  for (const s of r.bareScenarios) {
    const b = r.bare.get(s.id);
    rows.push([s.label, ...cells(b), ...kinds.slice(1).flatMap(() => EMPTY)]);
  }
  for (const s of r.floorScenarios) {
    const label = s.unit ? `${s.label} — ${s.unit}/s` : s.label;
    rows.push([label, ...r.stores.flatMap((st) => (st.kind === 'sqlite' ? cells(st.run.results.get(s.id)) : EMPTY))]);
  }
  for (const s of r.scenarios) {
    const label = s.unit ? `${s.label} — ${s.unit}/s` : s.label;
    rows.push([label, ...r.stores.flatMap((st) => cells(st.run.results.get(s.id)))]);
  }
  // A paced row is the round with the median p99 (bench/paced.ts).
  const paced = `paced at ${r.settings.paced.rate} req/s${r.settings.paced.rounds > 1 ? ` (median p99 of ${r.settings.paced.rounds} rounds)` : ''}`;
  const middle = (rounds: PacedRounds | undefined) => (rounds?.length ? medianRound(rounds) : undefined);
  const pacedIds = [...new Set(r.stores.flatMap((st) => [...(st.run.paced?.keys() ?? [])]))];
  for (const id of pacedIds) {
    const label = r.scenarios.find((s) => s.id === id)?.label ?? id;
    rows.push([`${label}, ${paced}`, ...r.stores.flatMap((st) => cells(middle(st.run.paced?.get(id))))]);
  }
  // The floor at the same paced rate (SQLite only).
  for (const id of pacedIds) {
    const floor = r.floorScenarios.find((s) => s.id === `floor-${id}`);
    const cellsOf = (st: Report['stores'][number]) => (st.kind === 'sqlite' && st.run.floorPaced?.has(id) ? cells(middle(st.run.floorPaced.get(id))) : EMPTY);
    if (floor && r.stores.some((st) => st.run.floorPaced?.has(id))) rows.push([`${floor.label}, ${paced}`, ...r.stores.flatMap(cellsOf)]);
  }
  for (const st of r.stores) {
    const idx = kinds.indexOf(st.kind);
    const pad = (c: string[]) => [...kinds.flatMap((_, i) => (i === idx ? c : EMPTY))];
    const sc = st.run.scale;
    if (sc) {
      rows.push([`Bearer read, ${sc.smallTokens.toLocaleString('en')} live tokens (best of ${sc.rates.small.length} rounds)`, ...pad(cells(sc.small))]);
      rows.push([`Bearer read, ${sc.largeTokens.toLocaleString('en')} live tokens (best of ${sc.rates.large.length} rounds)`, ...pad(cells(sc.large))]);
    }
    const p = st.run.purge;
    if (p) {
      rows.push([`Bearer read, ${p.liveTokens.toLocaleString('en')} live tokens, ${paced}`, ...pad(cells(middle(p.baseline)))]);
      rows.push([`Bearer read, ${paced}, while purging ${p.purged}`, ...pad(cells(middle(p.during)))]);
      rows.push([`Bearer read, ${p.controlTokens.toLocaleString('en')} live tokens and nothing to purge, ${paced}, in rounds alternating with the purge's (control)`, ...pad(cells(middle(p.control)))]);
      if (p.after) rows.push([`Bearer read, ${paced}, on the same server right after the purge`, ...pad(cells(middle(p.after)))]);
    }
  }
  return table(header, rows);
}

export function budgetTable(verdicts: Verdict[]): string {
  const result = (v: Verdict) => (v.met === undefined ? 'not measured' : v.met ? 'met' : '**missed**');
  return table(
    ['Budget (SQLite, one process)', 'Measured', 'Target', 'Result', 'Floor: the work alone', 'Lyceum vs floor'],
    verdicts.map((v) => [v.label, v.figure, v.target, result(v), v.floor ?? '', v.vsFloor ?? '']),
  );
}

/**
 * For each missed ratio or flow budget: what its target allows, what the
 * floor's work costs piece by piece, and what would meet it (bench/remedies.ts).
 */
function needsSection(r: Report): string {
  const missed = r.verdicts.filter((v) => v.needs);
  if (missed.length === 0) return '';
  const work = r.stores.find((s) => s.kind === 'sqlite')?.run.work;
  const pieces = work
    ? `The pieces of the floors' work were each timed alone, in a loop in one process on the run's database (bench/work-costs.ts): ${Object.entries(work)
        .map(([k, v]) => `${PIECE_NAMES[k as keyof WorkCosts]} ${f1(v)} µs`)
        .join(', ')}.`
    : 'The pieces of the floors\' work were not timed in this run.';
  return `
## What the missed budgets need

The ratio budgets by server CPU per request (the medians of the alternating
rounds), the flows by CPU per flow (the medians of their rounds), the paced reads beside
the floor's answers at the same rate, the saturated ones beside the floor's at the same
connections, the memory beside the floor's. ${pieces}

${missed.map((v) => `- **${v.label}**: ${v.needs}`).join('\n')}
`;
}

export function writeReport(file: string, r: Report): void {
  const m = r.machine;
  const startup = r.stores
    .filter((s) => s.run.startupMs?.length)
    .map((s) => `- ${s.kind}: ${secondsList(s.run.startupMs!)}${s.run.bareStartupMs?.length ? ` (bare Fastify, started before each: ${secondsList(s.run.bareStartupMs)})` : ''}`);
  const memory = r.stores.flatMap(({ kind, run: { memory } }) => {
    if (!memory) return [];
    const line = (who: string, m: MemoryFigure) => `- ${kind}, ${who}: ${f0(m.rss)} MB after ${m.tokens.toLocaleString('en')} issued tokens (${m.how})`;
    const small = memory.smallYoungGeneration;
    return [
      line('Lyceum', memory.lyceum),
      ...(memory.floor ? [line('floor (the same refresh grants on bench/floor-server.ts)', memory.floor)] : []),
      ...(small ? [line(`Lyceum with NODE_OPTIONS=${small.flags} (a fresh store, the same load)`, small)] : []),
    ];
  });
  const text = `# Benchmarks

Written by \`npm run bench\`${r.smoke ? ' in smoke mode (figures are not meaningful)' : ''}. Rerun it to refresh this file.

- Date: ${m.date}
- Machine: ${m.cores} cores, ${m.cpu}, ${m.memoryGb} GB RAM; load average before the run: ${m.loadBefore}, after: ${loadavg().map((x) => x.toFixed(2)).join(' ')}
- Node ${m.node}; commit ${m.commit}
- Load: autocannon in the bench process (separate from the servers, same machine), ${r.settings.connections} connections (the sequential flow: 1), ${r.settings.warmup} s warm-up then ${r.settings.duration} s measured per scenario; latencies from every response.
- Servers: the production build (\`node dist/lyceum.js serve\`), one process, defaults except \`RATE_LIMIT_*=0\`; LOG_LEVEL info and no access log (the defaults: events and errors only), written to a file. SQLite runs in WAL mode with \`synchronous=NORMAL\`: a commit survives a crash or kill of the process (only an OS crash or power loss can lose the last commits). PostgreSQL: a fresh database on the local server.
- The limit: a bare Fastify app (one GET route, one form POST route with @fastify/formbody, no logger) in a process of its own, measured in the same run. It and the floor are built like Lyceum (esbuild, scripts/bundle-options.ts) and run as plain JavaScript.
- The floor: bench/floor-server.ts, the same bare Fastify app serving Lyceum's measured endpoints on their paths, each doing only the work it cannot avoid, directly with better-sqlite3 prepared statements on the database of the SQLite server of the run (same file, tables, indexes and pragmas, WAL checkpoints on a worker thread as in Lyceum), in a process of its own, measured right after the Lyceum scenarios with the very same requests, clients, tokens and refresh chains.
- argon2id verification alone (@node-rs/argon2 verify, parameters of src/users/passwords.ts, one process): ${r.argon2.rates.map((a) => `${f1(a.perSecond)}/s with ${a.concurrency} in flight`).join(', ')}.

## Throughput, latency, memory

Per scenario: requests (or whole flows) per second, latency percentiles over
every response, the server's CPU time (user + system) per request or flow,
and its peak resident memory. The bare rows run in their own processes and
are the same for both stores. Two reference rows separate what the body and
what Lyceum's plugin stack cost: the bare app answering Lyceum's discovery
document, and bench/stack-server.ts (Lyceum's plugins and logger around that same
document, no Lyceum).

The floor rows (SQLite only) do what each endpoint must do and no more:
discovery sends Lyceum's discovery answer, bytes and headers copied from the
server at start; the anonymous catalog reads the first page of published
courses (the query Lyceum runs) and answers their public fields; UserInfo hashes the Bearer token (SHA-256), reads its row,
checks kind, expiry, revocation and audience, reads the user and answers the
claims; the bearer read does the same token check, then the students query
Lyceum runs (first page of 20, ordered by created_at and id) and answers the
same JSON; introspection parses the form, reads the client and the token and
answers RFC 7662; the refresh grant parses the form, reads the client, the
token and the user, derives the successor pair (HMAC) and hashes it, then in
one transaction retires the old refresh token and inserts the two new rows,
and answers the token JSON; registration parses the JSON body, checks the
redirect URIs, inserts the client and answers it. The full flow's floor
registers the client the same way; its authorize request reads the client and
the session (one join) and answers a minimal sign-in or consent page with a
CSRF token (an HMAC of a cookie secret) and the request in hidden fields; the
sign-in reads the user by email, verifies the password with Lyceum's own
argon2id call and inserts the session; the decision validates the request
again and inserts the code and the consent grant in one transaction; the
code grant consumes the code, checks client, expiry, redirect URI and PKCE
and inserts the token pair in one transaction, then signs the RS256 ID
token (jose, a 2048-bit key made at start). Every response carries
Lyceum's headers (security, CORS, cache). Before each floor scenario, its
first request is sent to Lyceum and to the floor: any difference in status,
headers or body is listed under "Notes from the run".

With ${r.settings.connections} connections kept busy, the mean latency is
${r.settings.connections} / throughput (Little's law): the latency of a
saturating load is queueing, and a p99 under 10 ms there needs well over
${f0(r.settings.connections / 0.01)} requests per second. The reads are
therefore also measured paced: ${r.settings.paced.rate} requests per second
over ${r.settings.paced.connections} connections, below what the server can
answer, so the latency is what a caller waits when the server is not
overloaded. A p99 is the slowest 1 % of the requests, and one busy second of
a shared host moves it more than any change to the code: each paced read is
measured in ${r.settings.paced.rounds} rounds of ${r.settings.paced.seconds} s (after ${r.settings.paced.warmup} s of warm-up), Lyceum's
and the floor's alternating, the order turned each round, and the round with
the median p99 stands for each (bench/paced.ts). The purge is judged paced
too, the same way: a stall shows as latency there; its row keeps the rounds
that ran mostly while the purge did, which alternate with the rounds of a
control, the same read on a server with nothing to purge.
The small and the large token store are two stores, each with its own
server, measured in ${r.settings.scaleRounds} alternating rounds; each store's best round stands
for it (interference from a shared host only ever slows a run down).
On a shared machine, CPU per request is steadier than throughput.

${mainTable(r)}

## Budgets

A budget set as a share of the bare route is paired with its floor: the
floor's throughput as a share of the same bare route (for the full flows, of
the same argon2id rate) says whether the budget can be met on this machine at
all (**out of reach** when even the work alone, done the simplest way, stays
below the target; the floor's share is then the highest target that could be
met here), and Lyceum as a share of the floor says how close it comes to what
its work allows. Both cells also give the share by server CPU time per
request or flow (the reference's divided by the measured one's; for the
flows, the reference is one argon2id verification), steadier than throughput
on a busy machine. The six shares of the bare route are judged on
alternating rounds (bench/ratio-rounds.ts): the bare route, Lyceum and the
floor measured one after the other, ${r.settings.rounds.count} times, the order turned each
round, ${r.settings.rounds.seconds} s each after ${r.settings.rounds.warmup} s of warm-up, and the median share taken; the main
table's figures, measured minutes apart, are given beside. The two flows
likewise (bench/flow-rounds.ts): argon2id verification alone (one in flight
for the sequential flow, the run's best count for the concurrent one),
Lyceum's flow and the floor's, ${r.settings.rounds.count} rounds, each flow's share taken of the
argon2id rate measured in its own round. The saturated p99 of the three reads
with such a budget is the median of Lyceum's rounds, beside the floor's; the
catalog, which has no ratio budget, gets ${r.settings.rounds.count} rounds of its own, Lyceum's and
the floor's alternating the same way. The saturated
latency rows give the floor's p99 at the same load, the paced ones the
floor's p99 at the same paced rate, the memory row the
floor's RSS after issuing as many tokens the same way, and the purge row the
same read on a server with nothing to purge, paced the same way in rounds
alternating with the purge's (the same read before the purge and right after
it is given beside).

${budgetTable(r.verdicts)}
${needsSection(r)}
## Start and memory

First 200 answer after spawning the server on an existing database (the scale test's, with its tokens):
${startup.join('\n') || '- not measured'}

Resident memory after issuing tokens with refresh grants at ${r.settings.connections} connections, Lyceum on a fresh store, then the floor on the same database issuing as many again, then Lyceum on another fresh store with V8's young generation capped:
${memory.join('\n') || '- not measured'}
${r.notes.length ? `\n## Notes from the run\n\n${r.notes.map((n) => `- ${n}`).join('\n')}\n` : ''}`;
  writeFileSync(file, text);
}
