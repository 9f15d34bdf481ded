/**
 * SQLite's maintenance thread (src/store/sqlite/maintenance-thread.ts): the
 * purge's statements run on a connection of its own, off the event loop, and
 * on the server's connection once the thread is gone.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { maintenanceThread, type MaintenanceOptions, type MaintenanceThread } from '../../src/store/sqlite/maintenance-thread.ts';

interface Db {
  items: { id: number; expires_at: number };
}

const opened: { sqlite: SQLite.Database; thread: MaintenanceThread }[] = [];

function open(options: MaintenanceOptions = {}, start = true) {
  const file = join(mkdtempSync(join(tmpdir(), 'lyceum-maintenance-')), 'db.sqlite');
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.exec('CREATE TABLE items (id INTEGER PRIMARY KEY, expires_at INTEGER NOT NULL)');
  const insert = sqlite.prepare('INSERT INTO items (expires_at) VALUES (?)');
  for (let i = 0; i < 100; i++) insert.run(i);
  const thread = maintenanceThread(sqlite, file, options);
  if (start) thread.start();
  opened.push({ sqlite, thread });
  return { sqlite, thread, file, maintenance: new Kysely<Db>({ dialect: thread.dialect }) };
}

const walBytes = (file: string) => statSync(`${file}-wal`).size;

/** Once the thread is up, the server's connection no longer checkpoints (the thread does). */
async function threadReady(sqlite: SQLite.Database): Promise<void> {
  while (sqlite.pragma('wal_autocheckpoint', { simple: true }) !== 0) await new Promise((resolve) => setTimeout(resolve, 5));
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

  it('until it is started, statements run on the server’s connection, which checkpoints by itself; started, the thread takes both over', async () => {
    const { sqlite, thread, maintenance } = open({}, false);
    expect(sqlite.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    sqlite.exec('BEGIN IMMEDIATE');
    // Not started: inside the server connection's own transaction, it completes without waiting for the COMMIT.
    expect(Number((await maintenance.deleteFrom('items').where('expires_at', '<', 20).executeTakeFirst()).numDeletedRows)).toBe(20);
    sqlite.exec('ROLLBACK');
    thread.start();
    thread.start();
    await threadReady(sqlite);
    sqlite.exec('BEGIN IMMEDIATE');
    let settled = false;
    const deleting = maintenance
      .deleteFrom('items')
      .where('expires_at', '<', 30)
      .executeTakeFirst()
      .finally(() => (settled = true));
    // Started: on its own connection, it waits for the server connection's write transaction.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(settled).toBe(false);
    sqlite.exec('COMMIT');
    expect(Number((await deleting).numDeletedRows)).toBe(30);
    expect(count(sqlite)).toBe(70);
  });

  it('refuses transactions: it runs single statements', async () => {
    const { maintenance } = open();
    await expect(maintenance.transaction().execute(async () => undefined)).rejects.toThrow(/single statements/);
  });

  it('keeps the WAL near its limit under writes that never pause, and cuts the file back to the limit once the log restarts', async () => {
    const limit = 1024 * 1024;
    const { sqlite, file } = open({ walLimitBytes: limit, checkpointEveryMs: 20 });
    sqlite.pragma('busy_timeout = 5000');
    sqlite.exec('CREATE TABLE blobs (id INTEGER PRIMARY KEY, body BLOB NOT NULL)');
    await threadReady(sqlite);
    const insert = sqlite.prepare('INSERT INTO blobs (body) VALUES (?)');
    // About 40 MB of WAL frames, one commit after another on the event loop, each after 0.1 ms of
    // other work (as a request's), while the thread checkpoints.
    const rows = 10_000;
    let largest = 0;
    for (let i = 0; i < rows; i++) {
      insert.run(randomBytes(3000));
      const until = performance.now() + 0.1;
      while (performance.now() < until);
      if (i % 100 === 0) largest = Math.max(largest, walBytes(file));
    }
    // Without the restarts the log only grows: it would end near the 40 MB written.
    expect(largest).toBeGreaterThan(limit);
    expect(largest).toBeLessThan(16 * limit);
    // Once a checkpoint has caught up, the next commit starts the log over and cuts the file back.
    await new Promise((resolve) => setTimeout(resolve, 100));
    insert.run(randomBytes(3000));
    expect(walBytes(file)).toBeLessThanOrEqual(limit);
    expect((sqlite.prepare('SELECT count(*) AS n FROM blobs').get() as { n: number }).n).toBe(rows + 1);
  });
});
