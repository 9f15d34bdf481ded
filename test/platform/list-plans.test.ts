/**
 * Every list of every area is a range of one index, on each store: the lists
 * the API serves (each area, unfiltered and by each filter, the first page
 * and a later one, for the school and for anonymous callers) are captured as
 * the store is asked for them, over real HTTP against a generated school,
 * and the database's plan for each is read. A full scan of the table or a
 * sort of the matching rows fails the test: both grow with the school. A
 * search may sort its matches but must find them through the search index.
 */
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, sql, SqliteDialect, type CompiledQuery } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedLargeSchool } from '../../src/demo/large-school.ts';
import { AREA_LIST, sortColumn, type AreaDef } from '../../src/platform/areas.ts';
import { listStatement } from '../../src/store/kysely/records.ts';
import type { ListQuery } from '../../src/store/types.ts';
import { startRecordsServer, type RecordsServer } from '../helpers/records.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

/** Students of the generated school: enough that a plan shows how it grows, few enough for CI. */
const STUDENTS = 1500;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

interface Captured {
  request: string;
  table: string;
  query: ListQuery;
}

describe.each(STORE_KINDS)('list query plans on %s', (kind) => {
  let s: RecordsServer;
  let db: AnyDb;
  let close: () => Promise<void>;
  const captured: Captured[] = [];

  beforeAll(async () => {
    s = await startRecordsServer(kind);
    await seedLargeSchool(s.server.deps.store, STUDENTS, s.server.deps.now());
    const records = s.server.deps.store.records;
    const list = records.list.bind(records);
    let request = '';
    records.list = async (table, query) => {
      captured.push({ request, table, query });
      return list(table, query);
    };
    const get = async (path: string, anonymous = false) => {
      request = `${anonymous ? 'anonymous ' : ''}GET ${path}`;
      const res = anonymous ? await s.anonymous('GET', path) : await s.owner('GET', path);
      expect(res.status, `${request}: ${res.text}`).toBe(200);
      return res.json as { data: Record<string, unknown>[]; next_cursor?: string };
    };
    for (const area of AREA_LIST) {
      const first = await get(`${area.path}?limit=2`);
      if (first.next_cursor) await get(`${area.path}?limit=2&cursor=${first.next_cursor}`);
      for (const [name, f] of Object.entries(area.fields)) {
        if (!f.filter) continue;
        const value = f.type === 'boolean' ? 'true' : f.enum ? f.enum[0]! : String(first.data[0]?.[name] ?? 'none');
        const page = await get(`${area.path}?limit=2&${name}=${encodeURIComponent(value)}`);
        if (page.next_cursor) await get(`${area.path}?limit=2&${name}=${encodeURIComponent(value)}&cursor=${page.next_cursor}`);
        if (area.publicRead && f.public) await get(`${area.path}?limit=2&${name}=${encodeURIComponent(value)}`, true);
      }
      // A search for a fragment of a record's text, three characters or more (shorter ones match by reading).
      const text = Object.entries(area.fields).find(([name, f]) => f.search && typeof first.data[0]?.[name] === 'string' && String(first.data[0][name]).length >= 5);
      if (text) {
        const fragment = String(first.data[0]![text[0]]).slice(1, 5);
        await get(`${area.path}?limit=2&q=${encodeURIComponent(fragment)}`);
        if (area.publicRead) await get(`${area.path}?limit=2&q=${encodeURIComponent(fragment)}`, true);
      }
      // A rare fragment: one student's email (the case the search index is for).
      if (area.name === 'students') await get(`${area.path}?limit=2&q=${encodeURIComponent('.1234@')}`);
      if (area.publicRead) {
        const page = await get(`${area.path}?limit=2`, true);
        if (page.next_cursor) await get(`${area.path}?limit=2&cursor=${page.next_cursor}`, true);
      }
    }
    records.list = list;
    if (kind === 'sqlite') {
      db = new Kysely({ dialect: new SqliteDialect({ database: new SQLite(s.server.databaseUrl, { readonly: true }) }) });
    } else {
      const pool = new pg.Pool({ connectionString: s.server.databaseUrl, max: 1 });
      // With these off, PostgreSQL picks a scan or a sort only when no index can serve the query:
      // the generated school is small, and on a small table a scan is what it would choose.
      pool.on('connect', (client) => void client.query('set enable_seqscan = off; set enable_sort = off'));
      db = new Kysely({ dialect: new PostgresDialect({ pool }) });
    }
    close = () => db.destroy();
  }, 120_000);

  afterAll(async () => {
    await close?.();
    await s?.server.close();
  });

  it('captured a list of every area, filtered by each of its filters', () => {
    const shapes = new Set(captured.map((c) => `${c.table}:${c.query.where.map(([col]) => col).join(',')}`));
    for (const area of AREA_LIST) {
      expect(shapes, area.name).toContain(`${area.name}:`);
      for (const [name, f] of Object.entries(area.fields)) if (f.filter) expect(shapes, `${area.name} by ${name}`).toContain(`${area.name}:${name}`);
    }
    expect(captured.some((c) => c.query.after)).toBe(true);
  });

  it('reads every list as a range of one index: no full scan, no sort', async () => {
    const problems: string[] = [];
    for (const c of captured) {
      // On SQLite the store asks its FTS5 index for the candidates of a search (every searchable area has one).
      const compiled = listStatement(db, c.table, c.query, kind === 'sqlite' && c.query.search !== undefined).compile();
      const steps = kind === 'sqlite' ? await sqlitePlan(db, compiled) : await postgresPlan(db, compiled, c.query.search !== undefined);
      const filtered = c.query.where.length > 0;
      const search = c.query.search !== undefined;
      // A search sorts its matches (few, for the rare fragment the index is for), but must find them through the search index.
      const bad = steps.filter((step) => (search ? /^SCAN \S+$|^Seq Scan/.test(step) : kind === 'sqlite' ? sqliteGrows(step, filtered) : postgresGrows(step)));
      // Small tables may be read in order instead; the rare fragment among many students must not.
      const rare = c.request.includes('q=.1234');
      if (rare && !steps.some((step) => (kind === 'sqlite' ? / VIRTUAL TABLE INDEX /.test(step) : / using ls_/.test(step)))) bad.push('no search index');
      if (bad.length > 0) problems.push(`${c.request}: ${bad.join(' | ')} (plan: ${steps.join(' | ')})`);
    }
    expect(problems).toEqual([]);
    expect(captured.length).toBeGreaterThan(AREA_LIST.length * 2);
  });

  it('has an index for each list that starts with its filter and ends with (sort, id)', async () => {
    const area = AREA_LIST.find((a) => a.name === 'enrollments') as AreaDef;
    const query: ListQuery = { where: [['course_id', '=', 'crs_scale_1']], sort: sortColumn(area), limit: 20 };
    const steps = kind === 'sqlite' ? await sqlitePlan(db, listStatement(db, area.name, query).compile()) : await postgresPlan(db, listStatement(db, area.name, query).compile());
    expect(steps.join(' ')).toMatch(/lx_enrollments__course_id__created_at__id/);
  });
});

async function sqlitePlan(db: AnyDb, compiled: CompiledQuery): Promise<string[]> {
  const rows = await db.executeQuery<{ detail: string }>({ ...compiled, sql: `explain query plan ${compiled.sql}` } as CompiledQuery<{ detail: string }>);
  return rows.rows.map((r) => r.detail);
}

/** SQLite: a scan with no index, a scan of a whole index under a filter (SEARCH is a range), a temporary sort. */
function sqliteGrows(step: string, filtered: boolean): boolean {
  if (/TEMP B-TREE/.test(step)) return true;
  if (/^SCAN \S+$/.test(step)) return true;
  return filtered && /^SCAN /.test(step);
}

interface PgNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PgNode[];
}

/**
 * The plan. For a search, plain index scans are off as well and sorting is on: what is left is
 * a bitmap scan of an index that can answer the LIKE, which only the pg_trgm index can.
 */
async function postgresPlan(db: AnyDb, compiled: CompiledQuery, search = false): Promise<string[]> {
  const rows = await db.transaction().execute(async (trx) => {
    if (search) await sql`set local enable_indexscan = off; set local enable_sort = on`.execute(trx);
    return trx.executeQuery<{ 'QUERY PLAN': { Plan: PgNode }[] }>({ ...compiled, sql: `explain (format json) ${compiled.sql}` } as CompiledQuery<{ 'QUERY PLAN': { Plan: PgNode }[] }>);
  });
  const steps: string[] = [];
  const walk = (n: PgNode) => {
    steps.push(`${n['Node Type']}${n['Relation Name'] ? ` on ${n['Relation Name']}` : ''}${n['Index Name'] ? ` using ${n['Index Name']}` : ''}`);
    for (const child of n.Plans ?? []) walk(child);
  };
  walk(rows.rows[0]!['QUERY PLAN'][0]!.Plan);
  return steps;
}

/** PostgreSQL: a sequential scan or a sort (any kind) is chosen, though both are switched off, only when no index serves. */
const postgresGrows = (step: string) => /^(Seq Scan|Sort|Incremental Sort)/.test(step);
