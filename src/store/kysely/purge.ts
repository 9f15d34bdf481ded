import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

/** Bounds of the rows one purge statement deletes. */
const PURGE_BATCH = { first: 200, min: 50, max: 5000 } as const;
/**
 * What one purge statement may take. On SQLite it runs on the maintenance
 * thread (maintenance-thread.ts), but holds the single writer lock meanwhile:
 * a request that writes waits for it.
 */
const PURGE_STATEMENT_MS = 1;
/**
 * Pause after each statement, as a multiple of its time: the purge holds the
 * writer, and a core, at most a tenth of the time. The longer the pause, the
 * closer the latency of requests served during a large purge stays to their
 * latency without one; the price is that a large backlog of expired rows
 * takes minutes to clear, which no expiry needs faster.
 */
const PURGE_PAUSE_FACTOR = 9;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `step` with a row limit until it deletes fewer rows than asked,
 * sizing each batch from how long the previous one took so no statement runs
 * much longer than PURGE_STATEMENT_MS (a slow batch shrinks the next one at
 * once; a fast one at most doubles it), and pausing PURGE_PAUSE_FACTOR times
 * as long as it ran in between. Whatever the backlog, a purge never holds the
 * SQLite writer (or PostgreSQL row locks) for long. Returns the rows deleted.
 */
export async function inBatches(step: (limit: number) => Promise<number>): Promise<number> {
  let limit: number = PURGE_BATCH.first;
  let total = 0;
  for (;;) {
    const started = performance.now();
    const deleted = await step(limit);
    const took = performance.now() - started;
    total += deleted;
    if (deleted < limit) return total;
    const scaled = Math.round((limit * PURGE_STATEMENT_MS) / Math.max(took, 0.1));
    limit = Math.min(PURGE_BATCH.max, Math.max(PURGE_BATCH.min, Math.min(limit * 2, scaled)));
    await pause(Math.max(1, PURGE_PAUSE_FACTOR * took));
  }
}

/**
 * Deletes the rows of `table` whose `column` (an indexed time) is before
 * `before`, in batches (inBatches), on the maintenance connection. Returns
 * the rows deleted.
 */
export function purgeBefore(
  maintenance: Kysely<Database>,
  table: 'authorization_codes' | 'device_authorizations' | 'tokens' | 'sessions' | 'password_failures' | 'idempotency_keys',
  column: 'expires_at' | 'revoked_at',
  before: number,
): Promise<number> {
  // Typed as one table: they share the hash key and the time columns used here.
  const db = maintenance as unknown as Kysely<Record<string, { hash: string; expires_at: number; revoked_at: number | null }>>;
  return inBatches(async (limit) => {
    const r = await db
      .deleteFrom(table)
      .where('hash', 'in', db.selectFrom(table).select('hash').where(column, '<', before).limit(limit))
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  });
}
