import { join } from 'node:path';
import { freePort } from './free-port.ts';
import { spawnServer, type Spawned } from './processes.ts';

async function start(file: string, readyPath: string, dir: string, env: Record<string, string> = {}): Promise<Spawned> {
  const port = await freePort();
  return spawnServer({
    args: ['--import', 'tsx', join(import.meta.dirname, file)],
    env: { ...env, PORT: String(port) },
    port,
    readyPath,
    logFile: join(dir, file.replace(/\.ts$/, '.log')),
  });
}

/** bench/bare-server.ts in a process of its own. */
export const startBare = (dir: string) => start('bare-server.ts', '/', dir);

/** bench/stack-server.ts (Lyceum's plugins, no Lyceum) in a process of its own. */
export const startStack = (dir: string) => start('stack-server.ts', '/.well-known/openid-configuration', dir);

/** bench/floor-server.ts on the SQLite file of a running Lyceum server (which it copies the discovery answer from). */
export const startFloor = (dir: string, lyceum: { url: string; databaseUrl: string }) =>
  start('floor-server.ts', '/.well-known/openid-configuration', dir, { FLOOR_DATABASE: lyceum.databaseUrl, FLOOR_LYCEUM_URL: lyceum.url });

/** Form body of the POST scenarios (bare and Lyceum's form endpoints have bodies of this size). */
export const BARE_FORM = 'grant_type=refresh_token&refresh_token=rt_0123456789abcdefghijklmnopqrstuvwxyz012345&client_id=cl_0123456789abcdef';
