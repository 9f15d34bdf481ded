/**
 * Starts the production build of Lyceum (dist/, from `npm run build`) as
 * `lyceum serve` in a process of its own.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { freePort } from './free-port.ts';
import { runNode, spawnServer, type Spawned } from './processes.ts';

const ROOT = resolve(import.meta.dirname, '..');
export const MAIN = join(ROOT, 'dist/lyceum.js');

/** Shared by every instance of one database (required with PostgreSQL). */
export const KEYS_SECRET = 'bench-keys-secret-0123456789abcdef0123456789';

export const BENCH_USER = { email: 'bench-owner@lyceum.test', password: 'bench-password-0123' };

export interface LyceumServer extends Spawned {
  databaseUrl: string;
}

export function assertBuilt(): void {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run "npm run build" first (npm run bench does)`);
}

function baseEnv(databaseUrl: string): Record<string, string> {
  return { DATABASE_URL: databaseUrl, KEYS_SECRET };
}

/** Adds the owner who signs in during the flows (`lyceum users add`), before the first start. */
export async function addBenchUser(databaseUrl: string): Promise<void> {
  await runNode([MAIN, 'users', 'add', '--email', BENCH_USER.email, '--password', BENCH_USER.password, '--role', 'owner'], baseEnv(databaseUrl));
}

/**
 * `lyceum serve` on databaseUrl with the rate limits off (the bench measures
 * the endpoints, not the limiter) and every other setting at its default
 * (LOG_LEVEL info, no access log: the log goes to a file); `env` adds or
 * overrides settings; `main` is another build's dist/lyceum.js (bench/ab.ts).
 */
export async function startLyceum(databaseUrl: string, logDir: string, env: Record<string, string> = {}, main = MAIN): Promise<LyceumServer> {
  const port = await freePort();
  const server = await spawnServer({
    // BENCH_CPU_PROFILE=<dir>: each Lyceum server writes a V8 CPU profile there when it stops.
    args: [...(process.env.BENCH_CPU_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE}`] : []), main, 'serve'],
    env: {
      ...baseEnv(databaseUrl),
      PORT: String(port),
      HOST: '127.0.0.1',
      RATE_LIMIT_REGISTER_PER_MINUTE: '0',
      RATE_LIMIT_SIGN_IN_PER_MINUTE: '0',
      RATE_LIMIT_MCP_PER_MINUTE: '0',
      // The registration scenario registers far more clients than the default cap of 10,000.
      MAX_REGISTERED_CLIENTS: '10000000',
      ...env,
    },
    port,
    readyPath: '/.well-known/openid-configuration',
    logFile: join(logDir, 'lyceum.log'),
  });
  return { ...server, databaseUrl };
}
