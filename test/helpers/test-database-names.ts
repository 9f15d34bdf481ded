import { randomBytes } from 'node:crypto';

/**
 * Names of the PostgreSQL schemas and databases tests create. Each carries
 * the process id of the test process that made it, so that a later run's
 * clean-up drops only what a finished process left behind, never the
 * database of a test run still going on beside it on the same server.
 */
export const SCHEMA_PREFIX = 't_';
export const DATABASE_PREFIX = 'lyceum_t_';

export const testSchemaName = (): string => `${SCHEMA_PREFIX}${process.pid}_${randomBytes(6).toString('hex')}`;
export const testDatabaseName = (): string => `${DATABASE_PREFIX}${process.pid}_${randomBytes(6).toString('hex')}`;

/** Whether a name of that prefix was left by a process that is no longer running (or by an older run that named no process). */
export function leftBehind(name: string, prefix: string): boolean {
  const pid = /^(\d+)_[0-9a-f]+$/.exec(name.slice(prefix.length))?.[1];
  if (!pid) return true;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (err) {
    // EPERM: the process exists but belongs to another user; it is running.
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
