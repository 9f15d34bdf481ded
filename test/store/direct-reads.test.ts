/**
 * Direct reads on SQLite (src/store/kysely/direct-reads.ts, sqlite-kysely.ts):
 * compiled reads answered straight from better-sqlite3 give what Kysely's
 * executor gives, and a read from outside an open transaction waits for it
 * instead of seeing its uncommitted rows.
 */
import SQLite from 'better-sqlite3';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compiledLookup } from '../../src/store/kysely/compiled-shapes.ts';
import { readFirst, readRows } from '../../src/store/kysely/direct-reads.ts';
import type { Database } from '../../src/store/kysely/schema.ts';
import { sqliteKysely } from '../../src/store/kysely/sqlite-kysely.ts';

interface Items {
  items: { id: number; name: string };
}

let sqlite: SQLite.Database;
let db: Kysely<Items>;
const byId = () => compiledLookup(db as unknown as Kysely<Database>, (value) => (db as Kysely<Items>).selectFrom('items').selectAll().where('id', '=', value(0) as number));

beforeAll(async () => {
  sqlite = new SQLite(':memory:');
  db = sqliteKysely(sqlite) as unknown as Kysely<Items>;
  await db.schema.createTable('items').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('name', 'text', (c) => c.notNull()).execute();
  await db.insertInto('items').values([{ id: 1, name: 'one' }, { id: 2, name: 'two' }]).execute();
});
afterAll(() => db.destroy());

const settledWithin = async (promise: Promise<unknown>, ms: number) => {
  let settled = false;
  void promise.then(() => (settled = true));
  await new Promise((resolve) => setTimeout(resolve, ms));
  return settled;
};

describe('direct reads on SQLite', () => {
  it('answer a compiled read as Kysely executes it: all rows, the first row, none', async () => {
    const all = db.selectFrom('items').selectAll().orderBy('id').compile();
    expect(await readRows(db, all)).toEqual((await db.executeQuery(all)).rows);
    expect(await readRows(db, all)).toEqual([{ id: 1, name: 'one' }, { id: 2, name: 'two' }]);
    const two = db.selectFrom('items').selectAll().where('id', '=', 2).compile();
    expect(await readFirst(db, two)).toEqual({ id: 2, name: 'two' });
    const none = db.selectFrom('items').selectAll().where('id', '=', 99).compile();
    expect(await readFirst(db, none)).toBeUndefined();
    expect(await readRows(db, none)).toEqual([]);
  });

  it('a lookup outside a transaction is answered at once, not through a promise', () => {
    const lookup = byId();
    expect(lookup(2)).toEqual({ id: 2, name: 'two' });
    expect(lookup(99)).toBeUndefined();
    expect(readFirst(db, db.selectFrom('items').selectAll().where('id', '=', 1).compile())).toEqual({ id: 1, name: 'one' });
  });

  it('a failing lookup is a rejected promise, not a throw, as from an asynchronous store', async () => {
    const missing = db.selectFrom('no_such_table' as 'items').selectAll().compile();
    let answer: unknown;
    expect(() => (answer = readFirst(db, missing))).not.toThrow();
    expect(answer).toBeInstanceOf(Promise);
    await expect(answer).rejects.toThrow(/no such table/);
  });

  it('a lookup issued while a transaction is open waits for its rollback and never sees its rows', async () => {
    const lookup = byId();
    let during: Promise<unknown> | undefined;
    await db
      .transaction()
      .execute(async (trx) => {
        await trx.insertInto('items').values({ id: 3, name: 'uncommitted' }).execute();
        await trx.updateTable('items').set({ name: 'renamed' }).where('id', '=', 1).execute();
        expect(sqlite.inTransaction).toBe(true);
        const pending = [lookup(3), lookup(1)];
        for (const p of pending) expect(p).toBeInstanceOf(Promise);
        during = Promise.all(pending);
        // The connection is the transaction's until it ends: the lookup cannot be answered meanwhile.
        expect(await settledWithin(during, 30)).toBe(false);
        throw new Error('roll back');
      })
      .catch((err: Error) => expect(err.message).toBe('roll back'));
    expect(await during).toEqual([undefined, { id: 1, name: 'one' }]);
  });

  it('a lookup issued while a transaction is open sees its rows once it commits', async () => {
    const lookup = byId();
    let during: Promise<unknown> | undefined;
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('items').values({ id: 4, name: 'four' }).execute();
      const pending = lookup(4);
      // Not answered at once: the read goes through Kysely's executor, behind the transaction.
      expect(pending).toBeInstanceOf(Promise);
      during = pending as Promise<unknown>;
      expect(await settledWithin(during, 30)).toBe(false);
    });
    expect(await during).toEqual({ id: 4, name: 'four' });
    expect(sqlite.inTransaction).toBe(false);
  });

  it('stay correct once more statements were prepared than the cache keeps', async () => {
    for (let n = 1; n <= 520; n++) {
      const q = db.selectFrom('items').select('id').where('id', '<=', 2).limit(n).orderBy('id').compile();
      expect(await readRows(db, q)).toEqual(n === 1 ? [{ id: 1 }] : [{ id: 1 }, { id: 2 }]);
    }
    expect(await byId()(2)).toEqual({ id: 2, name: 'two' });
  });
});
