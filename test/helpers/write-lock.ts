/**
 * Another connection holding a test server's write lock until release(), as
 * a long migration, a backup or an operator's open transaction would: reads
 * go on, and writes to the token table wait (on SQLite every write does).
 */
import SQLite from 'better-sqlite3';
import pg from 'pg';

export interface WriteLock {
  /** Ends the holder's transaction, writing nothing. */
  release(): Promise<void>;
  /** Runs one statement inside the holder's transaction, then commits it: a write that lands while others wait. */
  commitWith(sql: string): Promise<void>;
}

export async function holdWriteLock(databaseUrl: string): Promise<WriteLock> {
  if (databaseUrl.startsWith('postgres')) {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    // EXCLUSIVE lets reads through and makes every write wait, as a long migration or job would.
    await client.query('BEGIN');
    await client.query('LOCK TABLE tokens IN EXCLUSIVE MODE');
    return {
      async release() {
        await client.query('ROLLBACK');
        await client.end();
      },
      async commitWith(sql) {
        await client.query(sql);
        await client.query('COMMIT');
        await client.end();
      },
    };
  }
  const other = new SQLite(databaseUrl);
  other.exec('BEGIN IMMEDIATE');
  return {
    async release() {
      other.exec('ROLLBACK');
      other.close();
    },
    async commitWith(sql) {
      other.exec(sql);
      other.exec('COMMIT');
      other.close();
    },
  };
}
