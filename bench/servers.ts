/**
 * The processes the bench measures: Lyceum's production build (dist/lyceum.js),
 * the bare Fastify reference (bench/bare-server.ts, bundled the same way) and
 * the node-oidc-provider anchor (bench/anchor-server.ts, likewise),
 * each in a process of its own; their CPU time and RSS; fresh databases.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import pg from 'pg';
import { BUNDLE_OPTIONS } from '../scripts/bundle-options.ts';
import { freePort } from '../scripts/free-port.ts';

const ROOT = resolve(import.meta.dirname, '..');
export const MAIN = join(ROOT, 'dist/lyceum.js');
export const BENCH_USER = { email: 'bench-owner@lyceum.test', password: 'bench-password-0123' };
const KEYS_SECRET = 'bench-keys-secret-0123456789abcdef0123456789';

/** Servers still running: killed if the bench exits early, so none outlives it. */
const running = new Set<ChildProcess>();
process.on('exit', () => running.forEach((child) => child.kill('SIGKILL')));

/** Resident set size of a process in MB, from /proc (0 once it has exited). */
export function rssMb(pid: number): number {
  try {
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** CPU time (user + system) a process has used so far, in ms, from /proc (utime and stime, 100 ticks a second). */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

export interface Server {
  pid: number;
  url: string;
  /** Milliseconds from spawn to the first 200 answer. */
  startupMs: number;
  stop(): Promise<void>;
}

/** `node args...` with PORT set and its output appended to logFile, once GET readyPath answers 200. */
async function spawnServer(args: string[], env: Record<string, string>, readyPath: string, logFile: string): Promise<Server> {
  const port = await freePort();
  const started = performance.now();
  // BENCH_CPU_PROFILE=<dir>: each server writes a V8 CPU profile there when it stops.
  const profile = process.env.BENCH_CPU_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE}`] : [];
  const out = openSync(logFile, 'a');
  const child = spawn(process.execPath, [...profile, ...args], { env: { ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', out, out] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  const url = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 30_000; ; await new Promise((r) => setTimeout(r, 5))) {
    const why = child.exitCode !== null ? `exited (${child.exitCode})` : Date.now() > deadline ? 'gave no 200 within 30 s' : undefined;
    if (why) {
      child.kill('SIGKILL');
      throw new Error(`${args.join(' ')} ${why}; see ${logFile}:\n${readFileSync(logFile, 'utf8').split('\n').slice(-20).join('\n')}`);
    }
    const status = await fetch(url + readyPath, { signal: AbortSignal.timeout(1000) }).then(
      (r) => r.arrayBuffer().then(() => r.status),
      () => 0,
    );
    if (status === 200) break;
  }
  const startupMs = performance.now() - started;
  return {
    pid: child.pid!,
    url,
    startupMs,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Runs `node args...` to completion; throws with its output when it fails. */
async function runNode(args: string[], env: Record<string, string>): Promise<void> {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  if (code !== 0) throw new Error(`node ${args.join(' ')} failed (${code}):\n${output}`);
}

export function assertBuilt(): void {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run "npm run build" first (npm run bench does)`);
}

/** Adds the owner who signs in during the flows (`lyceum users add`), before the first start. */
export async function addBenchUser(databaseUrl: string, main = MAIN): Promise<void> {
  await runNode([main, 'users', 'add', '--email', BENCH_USER.email, '--password', BENCH_USER.password, '--role', 'owner'], { DATABASE_URL: databaseUrl, KEYS_SECRET });
}

/** `lyceum seed --scale N` on the database: the demo school grown to N students, five years of history. */
export async function seedSchool(databaseUrl: string, students: number, main = MAIN): Promise<void> {
  await runNode([main, 'seed', '--scale', String(students)], { DATABASE_URL: databaseUrl, KEYS_SECRET });
}

/**
 * `lyceum serve` on databaseUrl with the rate limits off and the account's
 * password-failure allowance at its highest (the bench measures the
 * endpoints, not the limiter: every flow signs in the one bench owner, on
 * several connections at once) and every other setting at its default
 * (LOG_LEVEL info, no access log); `main` is another build's dist/lyceum.js (bench/ab.ts).
 */
export function startLyceum(databaseUrl: string, logFile: string, main = MAIN): Promise<Server> {
  const env = {
    DATABASE_URL: databaseUrl,
    KEYS_SECRET,
    HOST: '127.0.0.1',
    RATE_LIMIT_REGISTER_PER_MINUTE: '0',
    RATE_LIMIT_SIGN_IN_PER_MINUTE: '0',
    RATE_LIMIT_MCP_PER_MINUTE: '0',
    SIGN_IN_FREE_FAILURES: '100',
    // The registration scenario registers far more clients than the default cap of 10,000.
    MAX_REGISTERED_CLIENTS: '10000000',
  };
  return spawnServer([main, 'serve'], env, '/.well-known/openid-configuration', logFile);
}

/**
 * bench/bare-server.ts bundled like Lyceum (scripts/bundle-options.ts) and run
 * as plain JavaScript: through tsx it would carry the loader and transpiler,
 * about 40 MB of RSS that Lyceum's build does not have.
 */
export async function startBare(logFile: string): Promise<Server> {
  return spawnServer([await bundled('bare-server')], {}, '/', logFile);
}

/** bench/anchor-server.ts (node-oidc-provider), bundled and run the same way as the bare reference. */
export async function startAnchor(logFile: string): Promise<Server> {
  return spawnServer([await bundled('anchor-server')], { NODE_ENV: 'production' }, '/.well-known/openid-configuration', logFile);
}

/** bench/<name>.ts bundled like Lyceum: the path of the JavaScript to run. */
async function bundled(name: string): Promise<string> {
  await build({ ...BUNDLE_OPTIONS, entryPoints: [join(import.meta.dirname, `${name}.ts`)], outdir: join(ROOT, 'dist/bench'), chunkNames: 'chunks/[name]-[hash]' });
  return join(ROOT, `dist/bench/${name}.js`);
}

export type StoreKind = 'sqlite' | 'postgres';

export const postgresBaseUrl = () => process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;

/** A fresh SQLite file in `dir`, or a fresh PostgreSQL database beside the base URL's; drop() removes the latter. */
export async function freshDatabase(kind: StoreKind, dir: string): Promise<{ url: string; drop(): Promise<void> }> {
  if (kind === 'sqlite') return { url: join(mkdtempSync(join(dir, 'sqlite-')), 'lyceum.sqlite'), drop: async () => {} };
  const base = postgresBaseUrl();
  if (!base) throw new Error('BENCH_DATABASE_URL or TEST_DATABASE_URL is needed for PostgreSQL');
  const name = `lyceum_bench_${randomBytes(5).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: base });
    await client.connect();
    await client.query(sql).finally(() => client.end());
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  return { url: url.href, drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
