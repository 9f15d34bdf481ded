import type pg from 'pg';
import type { DatabaseLimits } from '../../config/index.ts';
import { CurrentSchemaPostgresDialect } from './current-schema-dialect.ts';
import { isSlotRefused } from './pg-faults.ts';

const INT8_OID = 20;

/** pg returns BIGINT as a string; every Lyceum bigint is an epoch-ms time, safe as a number. */
const pgTypes = (types: typeof pg.types) => ({
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === INT8_OID ? (v: string) => Number(v) : types.getTypeParser(oid, format))) as typeof pg.types.getTypeParser,
});

/** The pool Kysely's PostgreSQL driver uses: connect and end. */
interface Pool {
  connect(): Promise<pg.PoolClient>;
  end(): Promise<void>;
}

const ignore = () => {};

/**
 * While a connection is lent out the pool does not listen for its errors, and
 * pg throws an error nobody listens for: a connection cut while lent (the
 * network gone, the server restarted) would end the process. Its query fails
 * with the same error, which is where it is handled.
 */
function listened(client: pg.PoolClient): pg.PoolClient {
  if (!client.listeners('error').includes(ignore)) client.on('error', ignore);
  return client;
}

/**
 * A connection from `pool`, trying again while the server refuses one for
 * want of a free slot (53300: "too many connections", "remaining connection
 * slots are reserved"), which lasts only until another client disconnects.
 * Retries start only while `withinMs` has not run out, each attempt bounded by
 * the pool's own connectionTimeoutMillis.
 */
async function connectWithin(pool: Pool, withinMs: number): Promise<pg.PoolClient> {
  const deadline = Date.now() + withinMs;
  for (let attempt = 0; ; attempt++) {
    try {
      return listened(await pool.connect());
    } catch (err) {
      const pause = Math.min(25 * 2 ** attempt, 250) * (0.5 + Math.random() / 2);
      if (!isSlotRefused(err) || Date.now() + pause >= deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

/**
 * The pool is created when the first query needs it, so a SQLite server never
 * loads the pg driver (loading pg made every start slower and larger: its
 * Cloudflare check builds a fetch Response, which loads Node's fetch).
 *
 * Every wait is bounded: for a pool connection (acquireTimeoutMs, also the
 * bound on opening one), for a lock (lock_timeout) and for a statement
 * (statement_timeout), both set on every connection as it opens. A 0 bound
 * means none (the migrations' own pool).
 */
function lazyPool(url: string, limits: DatabaseLimits): () => Promise<Pool> {
  return async () => {
    const { default: pg } = await import('pg');
    const created = new pg.Pool({
      connectionString: url,
      max: limits.poolSize,
      connectionTimeoutMillis: limits.acquireTimeoutMs,
      ...(limits.statementTimeoutMs > 0 ? { statement_timeout: limits.statementTimeoutMs } : {}),
      ...(limits.lockTimeoutMs > 0 ? { lock_timeout: limits.lockTimeoutMs } : {}),
      types: pgTypes(pg.types),
    });
    // An idle connection the server ends (restart, failover, admin command) must not crash the
    // process: pg drops that client from the pool and the next query opens a fresh one.
    created.on('error', () => {});
    return { connect: () => connectWithin(created, limits.acquireTimeoutMs), end: () => created.end() };
  };
}

/**
 * The PostgreSQL dialect with bounded waits: a database that is unreachable,
 * full, or too slow fails the statement, and the store's `fault` names that
 * failure a 503 (pg-faults.ts).
 */
export class BoundedPostgresDialect extends CurrentSchemaPostgresDialect {
  constructor(url: string, limits: DatabaseLimits) {
    super({ pool: lazyPool(url, limits) });
  }
}
