/**
 * compiledShapes (src/store/kysely/compiled-shapes.ts): a shape is built and
 * compiled once; each call gets its own values in the places they belong,
 * and the query's own constants stay.
 */
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { describe, expect, it } from 'vitest';
import { compiledShapes } from '../../src/store/kysely/compiled-shapes.ts';

interface Db {
  items: { id: number; kind: string; size: number };
}

const db = new Kysely<Db>({ dialect: new SqliteDialect({ database: new SQLite(':memory:') }) });

describe('compiledShapes', () => {
  it('builds a shape once, then only places the values; constants of the query stay', () => {
    const compile = compiledShapes();
    let builds = 0;
    const query = (kind: string, size: number, limit: number) =>
      compile('by-kind', [kind, size, limit], (value) => {
        builds++;
        return db
          .selectFrom('items')
          .selectAll()
          .where('kind', '=', value(0) as string)
          .where('size', '>=', value(1) as number)
          .where('id', '!=', 7)
          .limit(value(2) as number);
      });
    const first = query('a', 1, 10);
    const second = query('b', 5, 3);
    expect(builds).toBe(1);
    expect(second.sql).toBe(first.sql);
    const fresh = db.selectFrom('items').selectAll().where('kind', '=', 'b').where('size', '>=', 5).where('id', '!=', 7).limit(3).compile();
    expect(second.sql).toBe(fresh.sql);
    expect(second.parameters).toEqual(fresh.parameters);
    expect(first.parameters).toEqual(['a', 1, 7, 10]);
  });

  it('places one value wherever the shape uses it, and keeps shapes apart', () => {
    const compile = compiledShapes();
    const either = (v: string) =>
      compile('either', [v], (value) => db.selectFrom('items').select('id').where((eb) => eb.or([eb('kind', '=', value(0) as string), eb('kind', '<', value(0) as string)])));
    expect(either('x').parameters).toEqual(['x', 'x']);
    expect(either('y').parameters).toEqual(['y', 'y']);
    const other = compile('other', ['z'], (value) => db.selectFrom('items').select('id').where('kind', '=', value(0) as string));
    expect(other.sql).not.toBe(either('x').sql);
  });

  it('stays correct once more shapes were used than it keeps', () => {
    const compile = compiledShapes();
    const shaped = (n: number, v: number) => compile(`limit-${n}`, [v], (value) => db.selectFrom('items').select('id').where('size', '=', value(0) as number).limit(n));
    for (let n = 1; n <= 450; n++) expect(shaped(n, n * 2).parameters).toEqual([n * 2, n]);
    expect(shaped(1, 99).parameters).toEqual([99, 1]);
  });
});
