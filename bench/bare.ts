import { join } from 'node:path';
import { freePort } from './free-port.ts';
import { spawnServer, type Spawned } from './processes.ts';
import { referenceServerFile, type ReferenceServer } from './reference-build.ts';

/** A reference server, built by buildReferenceServers() (bench/reference-build.ts), in a process of its own. */
async function start(name: ReferenceServer, readyPath: string, dir: string, env: Record<string, string> = {}): Promise<Spawned> {
  const port = await freePort();
  return spawnServer({
    // BENCH_CPU_PROFILE=<dir>: as Lyceum's servers (bench/lyceum-server.ts), each reference server writes a V8 CPU profile there.
    args: [...(process.env.BENCH_CPU_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE}`] : []), referenceServerFile(name)],
    env: { ...env, PORT: String(port) },
    port,
    readyPath,
    logFile: join(dir, `${name}.log`),
  });
}

/** bench/bare-server.ts in a process of its own. */
export const startBare = (dir: string) => start('bare-server', '/', dir);

/** bench/stack-server.ts (Lyceum's plugins, no Lyceum) in a process of its own. */
export const startStack = (dir: string) => start('stack-server', '/.well-known/openid-configuration', dir);

/** bench/floor-server.ts on the SQLite file of a running Lyceum server (which it copies the discovery answer from). */
export const startFloor = (dir: string, lyceum: { url: string; databaseUrl: string }) =>
  start('floor-server', '/.well-known/openid-configuration', dir, { FLOOR_DATABASE: lyceum.databaseUrl, FLOOR_LYCEUM_URL: lyceum.url });

/** Form body of the POST scenarios (bare and Lyceum's form endpoints have bodies of this size). */
export const BARE_FORM = 'grant_type=refresh_token&refresh_token=rt_0123456789abcdefghijklmnopqrstuvwxyz012345&client_id=cl_0123456789abcdef';
