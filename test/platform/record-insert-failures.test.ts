/**
 * How a create answers when the store refuses the row itself: a made-up slug
 * is retried with a new suffix a bounded number of times, then the client
 * reads a 409; a refusal that is not a unique value is the server's fault, a
 * 500, never a conflict the client would try to fix. The refusals are real:
 * the test adds a unique index or a trigger to the server's own database.
 */
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRecordsServer, type RecordsServer } from '../helpers/records.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

/** Runs SQL on the test server's own database, beside the server's connections. */
async function runSql(databaseUrl: string, statement: string): Promise<void> {
  if (!databaseUrl.startsWith('postgres')) {
    const db = new Database(databaseUrl);
    try {
      db.exec(statement);
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

describe.each(STORE_KINDS)('a create the store refuses (%s)', (kind) => {
  let ctx: RecordsServer;
  beforeAll(async () => {
    ctx = await startRecordsServer(kind);
  });
  afterAll(() => ctx?.server.stop());

  it('retries a made-up slug a bounded number of times, then answers 409 and stores nothing', async () => {
    // Every retry changes only the slug's suffix, so a second unique title fails each of them.
    await runSql(ctx.server.databaseUrl, 'CREATE UNIQUE INDEX test_courses_title ON courses (title)');
    try {
      expect((await ctx.owner('POST', '/courses', { title: 'Bounded Retry' })).status).toBe(201);
      const before = await ctx.count('courses');
      const res = await ctx.owner('POST', '/courses', { title: 'Bounded Retry' });
      expect({ status: res.status, body: res.json }).toEqual({ status: 409, body: { error: 'conflict', error_description: 'Another course already has this slug' } });
      expect(await ctx.count('courses')).toBe(before);
    } finally {
      await runSql(ctx.server.databaseUrl, 'DROP INDEX test_courses_title');
    }
  });

  it('answers a refusal that is not a unique value with a 500, not a conflict', async () => {
    const [create, drop] =
      kind === 'sqlite'
        ? ["CREATE TRIGGER test_refuse_courses BEFORE INSERT ON courses BEGIN SELECT RAISE(ABORT, 'refused by the test'); END", 'DROP TRIGGER test_refuse_courses']
        : [
            "CREATE FUNCTION test_refuse() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$ LANGUAGE plpgsql; CREATE TRIGGER test_refuse_courses BEFORE INSERT ON courses FOR EACH ROW EXECUTE FUNCTION test_refuse()",
            'DROP TRIGGER test_refuse_courses ON courses; DROP FUNCTION test_refuse()',
          ];
    await runSql(ctx.server.databaseUrl, create);
    try {
      const res = await ctx.owner('POST', '/courses', { title: 'Refused By A Trigger' });
      expect({ status: res.status, body: res.json }).toEqual({
        status: 500,
        body: { error: 'server_error', error_description: 'The server could not complete the request.' },
      });
    } finally {
      await runSql(ctx.server.databaseUrl, drop);
    }
    expect((await ctx.owner('POST', '/courses', { title: 'Accepted Again' })).status).toBe(201);
  });
});
