import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { freshDatabase, type Database, type StoreKind } from './data.ts';
import { addBenchUser, startLyceum, type LyceumServer } from './lyceum-server.ts';

/**
 * A fresh database of `kind` with the bench owner, and Lyceum serving it
 * (its log in `<dir>/<kind>-<phase>/`) while `fn` runs; both are gone after.
 * `env` adds settings (or NODE_OPTIONS) to the server's environment.
 */
export async function onFreshLyceum<T>(
  kind: StoreKind,
  dir: string,
  phase: string,
  fn: (server: LyceumServer, db: Database, logDir: string) => Promise<T>,
  env: Record<string, string> = {},
): Promise<T> {
  const logDir = join(dir, `${kind}-${phase}`);
  mkdirSync(logDir, { recursive: true });
  const db = await freshDatabase(kind, dir);
  let server: LyceumServer | undefined;
  try {
    await addBenchUser(db.url);
    server = await startLyceum(db.url, logDir, env);
    return await fn(server, db, logDir);
  } finally {
    await server?.stop();
    await db.drop();
  }
}
