/**
 * Lists of /api/v1 over real HTTP: cursor pagination, filters, text search
 * and the refusal of bad list parameters.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_KINDS } from '../helpers/stores.ts';
import { expectError, future, marker, startRecordsServer, type ApiResponse, type RecordsServer } from '../helpers/records.ts';

const b64url = (s: string) => Buffer.from(s).toString('base64url');

describe.each(STORE_KINDS)('record lists (%s)', (kind) => {
  let ctx: RecordsServer;

  beforeAll(async () => {
    ctx = await startRecordsServer(kind);
  });
  afterAll(() => ctx?.server.stop());

  /** Follows next_cursor from `first` to the end; every page's size and ids. */
  async function walk(path: string, limit: number): Promise<{ sizes: number[]; records: Record<string, unknown>[] }> {
    const sep = path.includes('?') ? '&' : '?';
    const sizes: number[] = [];
    const records: Record<string, unknown>[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const res: ApiResponse = await ctx.owner('GET', `${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status, res.text).toBe(200);
      sizes.push(res.data.length);
      records.push(...res.data);
      cursor = typeof res.json.next_cursor === 'string' ? res.json.next_cursor : undefined;
      if (!cursor) return { sizes, records };
      expect(res.data.length, 'a page with a next_cursor is full').toBe(limit);
    }
    throw new Error('pagination did not end');
  }

  it('limit 7 with next_cursor walks 25 courses in order: no duplicates, no gaps', async () => {
    const m = marker('page');
    const made: string[] = [];
    for (let i = 0; i < 25; i++) made.push(String((await ctx.maker.make('courses', { title: `Paging ${m} ${String(i).padStart(2, '0')}` })).id));

    const { sizes, records } = await walk(`/courses?q=${m}`, 7);
    expect(sizes).toEqual([7, 7, 7, 4]);
    const ids = records.map((r) => String(r.id));
    expect(new Set(ids).size).toBe(25);
    expect([...ids].sort()).toEqual([...made].sort());
    // Oldest first (ties are broken by id, in the database's own order).
    const times = records.map((r) => Date.parse(String(r.created_at)));
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('paging events by start time with many equal start times still returns each exactly once', async () => {
    const starts = [future(5), future(6), future(7)];
    for (let i = 0; i < 25; i++) await ctx.maker.make('events', { title: `Tie ${i}`, starts_at: starts[i % 3], status: i % 2 ? 'draft' : 'published' });
    const stored = (await ctx.server.deps.store.records.select('events', ['id'], [])).map((r) => String(r.id));

    const { records } = await walk('/events', 7);
    const ids = records.map((r) => String(r.id));
    expect(ids.length).toBe(stored.length);
    expect([...ids].sort()).toEqual([...stored].sort());
    const times = records.map((r) => Date.parse(String(r.starts_at)));
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('filters by status and level select exactly the matching courses', async () => {
    const m = marker('flt');
    const specs = [
      { level: 'beginner', status: 'draft' },
      { level: 'advanced', status: 'published' },
      { level: 'advanced', status: 'draft' },
      { level: 'intermediate', status: 'archived' },
    ];
    const made: Record<string, unknown>[] = [];
    for (const s of specs) made.push(await ctx.maker.make('courses', { title: `Filter ${m}`, ...s }));
    const idsOf = (res: ApiResponse) => res.data.map((r) => r.id).sort();
    const expected = (pred: (s: (typeof specs)[number]) => boolean) =>
      made
        .filter((_, i) => pred(specs[i]!))
        .map((r) => r.id)
        .sort();

    expect(idsOf(await ctx.owner('GET', `/courses?q=${m}&level=advanced`))).toEqual(expected((s) => s.level === 'advanced'));
    expect(idsOf(await ctx.owner('GET', `/courses?q=${m}&status=draft`))).toEqual(expected((s) => s.status === 'draft'));
    expect(idsOf(await ctx.owner('GET', `/courses?q=${m}&status=draft&level=advanced`))).toEqual(expected((s) => s.status === 'draft' && s.level === 'advanced'));
    const published = await ctx.owner('GET', '/courses?status=published&limit=100');
    for (const c of published.data) expect(c.status).toBe('published');
  });

  it('?active=false lists only inactive coupons, ?active=true only active ones', async () => {
    const off = await ctx.maker.make('coupons', { code: marker('OFF'), active: false });
    const on = await ctx.maker.make('coupons', { code: marker('ON') });
    const inactive = await ctx.owner('GET', '/coupons?active=false&limit=100');
    expect(inactive.status, inactive.text).toBe(200);
    expect(inactive.data.map((c) => c.id)).toContain(off.id);
    expect(inactive.data.map((c) => c.id)).not.toContain(on.id);
    for (const c of inactive.data) expect(c.active).toBe(false);
    const active = await ctx.owner('GET', '/coupons?active=true&limit=100');
    expect(active.data.map((c) => c.id)).toContain(on.id);
    for (const c of active.data) expect(c.active).toBe(true);
  });

  it('a student email filter matches whatever the case of the query', async () => {
    const email = `${marker('filter')}@example.test`;
    const student = await ctx.maker.make('students', { email });
    const res = await ctx.owner('GET', `/students?email=${encodeURIComponent(email.toUpperCase())}`);
    expect(res.data.map((s) => s.id)).toEqual([student.id]);
  });

  it.each([
    ['/coupons?active=maybe', 'active is true or false'],
    ['/coupons?active=1', 'active is true or false, not 1'],
    ['/courses?level=expert', 'expert is not a level'],
    ['/courses?status=deleted', 'deleted is not a status'],
    ['/students?status=gone', 'gone is not a student status'],
  ])('%s is refused 400: %s', async (path) => {
    expectError(await ctx.owner('GET', path), 400, 'invalid_request');
  });

  it('q searches the searchable fields case-insensitively, and its % and _ are literal characters', async () => {
    const m = marker('q');
    const byTitle = await ctx.maker.make('courses', { title: `Quantum Basics ${m}` });
    const bySummary = await ctx.maker.make('courses', { title: `Other ${m}`, summary: `All about QUANTUM things` });
    await ctx.maker.make('courses', { title: `Unrelated ${m}` });

    const upper = await ctx.owner('GET', `/courses?q=${encodeURIComponent(`QUANTUM BASICS ${m.toUpperCase()}`)}`);
    expect(upper.data.map((c) => c.id)).toEqual([byTitle.id]);
    const lower = await ctx.owner('GET', `/courses?q=quantum&limit=100`);
    expect(lower.data.map((c) => c.id)).toEqual(expect.arrayContaining([byTitle.id, bySummary.id]));
    for (const c of lower.data) expect(`${String(c.title)} ${String(c.summary)}`.toLowerCase()).toContain('quantum');

    expect((await ctx.owner('GET', `/courses?q=${encodeURIComponent(`qu_ntum basics ${m}`)}`)).data).toEqual([]);
    expect((await ctx.owner('GET', `/courses?q=${encodeURIComponent(`${m}%`)}`)).data).toEqual([]);
    expect((await ctx.owner('GET', `/courses?q=${encodeURIComponent('%')}`)).data).toEqual([]);
  });

  it.each([
    ['not-a-cursor', 'it is not base64url JSON'],
    [b64url('{"a":1}'), 'it is not a [sort value, id] pair'],
    [b64url('[1]'), 'it has one element'],
    [b64url('[{"x":1},"crs_1"]'), 'its sort value is an object'],
    [b64url('[1,2]'), 'its id is not a string'],
  ])('cursor %s is refused 400: %s', async (cursor) => {
    expectError(await ctx.owner('GET', `/courses?cursor=${encodeURIComponent(cursor)}`), 400, 'invalid_request');
  });

  const badTime = (sort: string) => `cursor is not one this API returned: its ${sort} must be a time in epoch milliseconds`;
  it.each([
    [b64url('["yesterday","crs_1"]'), 'a text sort value for a list sorted by time', badTime],
    [b64url('[1e300,"crs_1"]'), 'a sort value beyond any time', badTime],
    [b64url('[1,"crs_\\u0000"]'), 'a NUL character in the id', () => 'cursor is not one this API returned'],
  ])('forged cursor %s (%s) is refused 400 invalid_request', async (cursor, _why, description) => {
    for (const [path, sort] of [
      ['/courses', 'created_at'],
      ['/events', 'starts_at'],
    ] as const) {
      const res = await ctx.owner('GET', `${path}?cursor=${encodeURIComponent(cursor)}`);
      expect({ status: res.status, body: res.json }, `${path} → ${res.text}`).toEqual({
        status: 400,
        body: { error: 'invalid_request', error_description: description(sort) },
      });
    }
  });

  it.each(['/courses?q=a%00b', '/courses?slug=a%00b', '/students?email=a%00b%40example.test', '/coupons?code=%00'])(
    'a NUL character in %s is refused 400 invalid_request on both stores',
    async (path) => {
      const res = await ctx.owner('GET', path);
      expect({ status: res.status, body: res.json }, res.text).toEqual({
        status: 400,
        body: { error: 'invalid_request', error_description: 'Parameters must not contain NUL characters' },
      });
    },
  );

  it.each([
    ['101', 'more than 100'],
    ['1000', 'more than 100'],
    ['0', 'less than 1'],
    ['-5', 'less than 1'],
    ['ten', 'not a number'],
    ['2.5', 'not a whole number'],
  ])('limit=%s is refused 400: %s', async (limit) => {
    expectError(await ctx.owner('GET', `/courses?limit=${limit}`), 400, 'invalid_request');
  });

  it('limit 100 is accepted', async () => {
    const res = await ctx.owner('GET', '/courses?limit=100');
    expect(res.status, res.text).toBe(200);
    expect(res.data.length).toBeLessThanOrEqual(100);
  });
});
