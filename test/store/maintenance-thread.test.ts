/**
 * SQLite's maintenance thread (src/store/kysely/maintenance-thread.ts): the
 * purge's statements run on a connection of its own, off the event loop, and
 * on the server's connection once the thread is gone.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { startMaintenanceThread, type MaintenanceThread } from '../../src/store/kysely/maintenance-thread.ts';

interface Db {
  items: { id: number; expires_at: number };
}

const opened: { sqlite: SQLite.Database; thread: MaintenanceThread }[] = [];

function open() {
  const file = join(mkdtempSync(join(tmpdir(), 'lyceum-maintenance-')), 'db.sqlite');
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.exec('CREATE TABLE items (id INTEGER PRIMARY KEY, expires_at INTEGER NOT NULL)');
  const insert = sqlite.prepare('INSERT INTO items (expires_at) VALUES (?)');
  for (let i = 0; i < 100; i++) insert.run(i);
  const thread = startMaintenanceThread(sqlite, file);
  opened.push({ sqlite, thread });
  return { sqlite, thread, maintenance: new Kysely<Db>({ dialect: thread.dialect }) };
}

const count = (sqlite: SQLite.Database) => (sqlite.prepare('SELECT count(*) AS n FROM items').get() as { n: number }).n;

afterEach(() => {
  for (const { sqlite, thread } of opened.splice(0)) {
    thread.stop();
    sqlite.close();
  }
});

describe('the SQLite maintenance thread', () => {
  it('runs a statement on its own connection: it waits for the server connection’s write transaction while the event loop goes on', async () => {
    const { sqlite, maintenance } = open();
    sqlite.exec('BEGIN IMMEDIATE');
    sqlite.prepare('INSERT INTO items (expires_at) VALUES (?)').run(1000);
    let settled = false;
    const deleting = maintenance
      .deleteFrom('items')
      .where('expires_at', '<', 50)
      .executeTakeFirst()
      .finally(() => {
        settled = true;
      });
    // On the server's own connection the DELETE would run inside the open transaction at once.
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(settled).toBe(false);
    sqlite.exec('COMMIT');
    const r = await deleting;
    expect(Number(r.numDeletedRows)).toBe(50);
    expect(count(sqlite)).toBe(51);
  });

  it('returns the rows of a read', async () => {
    const { maintenance } = open();
    const rows = await maintenance.selectFrom('items').select('id').where('expires_at', '<', 3).orderBy('id').execute();
    expect(rows).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
  });

  it('rejects a failing statement with SQLite’s message and code, and keeps serving', async () => {
    const { maintenance } = open();
    const failed = await sql`INSERT INTO items (id, expires_at) VALUES (1, 0)`.execute(maintenance).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(Error);
    expect((failed as Error).message).toMatch(/UNIQUE constraint failed/);
    expect((failed as { code?: string }).code).toBe('SQLITE_CONSTRAINT_PRIMARYKEY');
    expect(Number((await maintenance.deleteFrom('items').where('expires_at', '<', 10).executeTakeFirst()).numDeletedRows)).toBe(10);
  });

  it('runs statements on the server’s connection once the thread is stopped', async () => {
    const { sqlite, thread, maintenance } = open();
    thread.stop();
    sqlite.exec('BEGIN IMMEDIATE');
    // Inside the server connection's own transaction: it completes without waiting for the COMMIT.
    const r = await maintenance.deleteFrom('items').where('expires_at', '<', 20).executeTakeFirst();
    expect(Number(r.numDeletedRows)).toBe(20);
    sqlite.exec('ROLLBACK');
    expect(count(sqlite)).toBe(100);
  });

  it('refuses transactions: it runs single statements', async () => {
    const { maintenance } = open();
    await expect(maintenance.transaction().execute(async () => undefined)).rejects.toThrow(/single statements/);
  });
});
