/**
 * Key lookups (src/store/kysely/key-lookup.ts) on Kysely over one
 * better-sqlite3 connection (src/store/sqlite/sqlite-kysely.ts), where they
 * are answered straight from the prepared statement: they give what the
 * database holds for each call's values, a lookup from outside an open
 * transaction waits for it instead of seeing its uncommitted rows, and a
 * failure is a rejected promise. Statements that wait for the connection
 * get it in the order they asked.
 */
import SQLite from 'better-sqlite3';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyLookup } from '../../src/store/kysely/key-lookup.ts';
import { sqliteKysely } from '../../src/store/sqlite/sqlite-kysely.ts';

interface Items {
  items: { id: number; name: string };
}

let sqlite: SQLite.Database;
let db: Kysely<Items>;
let keyLookup: KeyLookup;
const lookup = () => keyLookup((id: number) => db.selectFrom('items').selectAll().where('id', '=', id));

beforeAll(async () => {
  sqlite = new SQLite(':memory:');
  const opened = sqliteKysely(sqlite);
  db = opened.db as unknown as Kysely<Items>;
  keyLookup = opened.lookups;
  await db.schema
    .createTable('items')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .execute();
  await db
    .insertInto('items')
    .values([
      { id: 1, name: 'one' },
      { id: 2, name: 'two' },
    ])
    .execute();
});
afterAll(() => db.destroy());

const settledWithin = async (promise: Promise<unknown>, ms: number) => {
  let settled = false;
  void promise.then(() => (settled = true));
  await new Promise((resolve) => setTimeout(resolve, ms));
  return settled;
};

describe('key lookups on SQLite', () => {
  it("give the row of each call's key, or undefined", async () => {
    const byId = lookup();
    expect(await byId(2)).toEqual({ id: 2, name: 'two' });
    expect(await byId(1)).toEqual({ id: 1, name: 'one' });
    expect(await byId(99)).toBeUndefined();
  });

  it('a failing lookup is a rejected promise, not a throw', async () => {
    const missing = keyLookup((id: number) =>
      db
        .selectFrom('no_such_table' as 'items')
        .selectAll()
        .where('id', '=', id),
    );
    let answer: unknown;
    expect(() => (answer = missing(1))).not.toThrow();
    expect(answer).toBeInstanceOf(Promise);
    await expect(answer).rejects.toThrow(/no such table/);
  });

  it('refuses a query whose parameters are not its values in order', async () => {
    const constant = keyLookup((id: number) => db.selectFrom('items').selectAll().where('id', '=', id).where('name', '!=', 'x'));
    await expect(constant(1)).rejects.toThrow(/parameters must be its values in order/);
  });

  it('a lookup issued while a transaction is open waits for its rollback and never sees its rows', async () => {
    const byId = lookup();
    let during: Promise<unknown> | undefined;
    await db
      .transaction()
      .execute(async (trx) => {
        await trx.insertInto('items').values({ id: 3, name: 'uncommitted' }).execute();
        await trx.updateTable('items').set({ name: 'renamed' }).where('id', '=', 1).execute();
        expect(sqlite.inTransaction).toBe(true);
        during = Promise.all([byId(3), byId(1)]);
        // The connection is the transaction's until it ends: the lookup cannot be answered meanwhile.
        expect(await settledWithin(during, 30)).toBe(false);
        throw new Error('roll back');
      })
      .catch((err: Error) => expect(err.message).toBe('roll back'));
    expect(await during).toEqual([undefined, { id: 1, name: 'one' }]);
  });

  it('a lookup issued while a transaction is open sees its rows once it commits', async () => {
    const byId = lookup();
    let during: Promise<unknown> | undefined;
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('items').values({ id: 4, name: 'four' }).execute();
      during = byId(4);
      expect(await settledWithin(during, 30)).toBe(false);
    });
    expect(await during).toEqual({ id: 4, name: 'four' });
    expect(sqlite.inTransaction).toBe(false);
  });

  it('statements that waited for a transaction run in the order they were issued', async () => {
    const done: number[] = [];
    let waiting: Promise<unknown>[] = [];
    await db.transaction().execute(async (trx) => {
      await trx.updateTable('items').set({ name: 'held' }).where('id', '=', 2).execute();
      waiting = [1, 2, 3, 4].map((n) =>
        db
          .updateTable('items')
          .set({ name: `write ${n}` })
          .where('id', '=', 2)
          .execute()
          .then(() => done.push(n)),
      );
      expect(await settledWithin(Promise.race(waiting), 30)).toBe(false);
    });
    await Promise.all(waiting);
    const after = await lookup()(2);
    await db.updateTable('items').set({ name: 'two' }).where('id', '=', 2).execute();
    // First come, first served: a request that waited longest is not overtaken by later ones.
    expect(done).toEqual([1, 2, 3, 4]);
    expect(after).toEqual({ id: 2, name: 'write 4' });
  });

  it('stays correct once more statements were prepared than the cache keeps', async () => {
    for (let n = 1; n <= 520; n++) {
      const rows = await db.selectFrom('items').select('id').where('id', '<=', 2).limit(n).orderBy('id').execute();
      expect(rows).toEqual(n === 1 ? [{ id: 1 }] : [{ id: 1 }, { id: 2 }]);
    }
    expect(await lookup()(2)).toEqual({ id: 2, name: 'two' });
  });
});
