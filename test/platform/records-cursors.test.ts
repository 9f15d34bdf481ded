/**
 * Tampered list cursors over real HTTP: a sort value the sort column cannot
 * hold is 400 invalid_request on every list endpoint, never a 5xx (PostgreSQL
 * refuses an integer above 2^31 for a 32-bit column).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AREA_LIST } from '../../src/platform/areas.ts';
import { columnValueProblem } from '../../src/platform/fields.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { startRecordsServer, type RecordsServer } from '../helpers/records.ts';

const cursorOf = (value: unknown, id = 'sec_abc') => Buffer.from(JSON.stringify([value, id])).toString('base64url');

describe.each(STORE_KINDS)('list cursors (%s)', (kind) => {
  let ctx: RecordsServer;
  beforeAll(async () => {
    ctx = await startRecordsServer(kind);
    const course = await ctx.maker.make('courses', { title: 'Cursor course' });
    const section = await ctx.maker.make('sections', { course_id: course.id, title: 'One' });
    await ctx.maker.make('lessons', { section_id: section.id, title: 'Lesson one' });
  });
  afterAll(() => ctx?.server.stop());

  const list = (path: string, cursor: string) => ctx.owner('GET', `${path}?cursor=${encodeURIComponent(cursor)}`);

  describe.each(['/curriculum/sections', '/curriculum/lessons'])('%s (sorted by position, an integer column)', (path) => {
    it.each([
      ['an integer above 2^31', cursorOf(2 ** 31 + 5)],
      ['an integer far above 2^31', cursorOf(2 ** 40)],
      ['a negative integer', cursorOf(-1)],
      ['a float', cursorOf(1.5)],
      ['a string where a number is expected', cursorOf('3')],
      ['null', cursorOf(null)],
    ])('a cursor holding %s is 400 invalid_request, naming the column', async (_why, cursor) => {
      const res = await list(path, cursor);
      expect({ status: res.status, body: res.json }).toEqual({
        status: 400,
        body: { error: 'invalid_request', error_description: 'cursor is not one this API returned: its position must be an integer from 0 to 10000' },
      });
    });

    it.each([
      ['non-base64 garbage', '!!!%%%***'],
      ['base64 of no JSON', Buffer.from('not json').toString('base64url')],
      ['a pair whose id is not a string', Buffer.from('[1,2]').toString('base64url')],
    ])('%s is 400 invalid_request', async (_why, cursor) => {
      const res = await list(path, cursor);
      expect({ status: res.status, body: res.json }).toEqual({
        status: 400,
        body: { error: 'invalid_request', error_description: 'cursor is not one this API returned' },
      });
    });

    it('a cursor this API returned still pages on', async () => {
      const first = await ctx.owner('GET', `${path}?limit=1`);
      expect(first.status).toBe(200);
      const res = await list(path, cursorOf(0, String(first.data[0]!.id)));
      expect(res.status, res.text).toBe(200);
    });
  });

  it('every list endpoint answers a sort value of the wrong type with 400 invalid_request', async () => {
    for (const area of AREA_LIST.filter((a) => a.readScope)) {
      for (const value of [1.5, 'soon', { x: 1 }, 1e300]) {
        const res = await list(area.path, cursorOf(value));
        expect(res.status, `${area.path} with ${JSON.stringify(value)}: ${res.text}`).toBe(400);
        expect(res.json.error).toBe('invalid_request');
        expect(String(res.json.error_description)).toMatch(/^cursor is not one this API returned: its \w+ must be /);
      }
    }
  });

  it('a time-sorted list takes a time beyond 2^31 ms (every real time is)', async () => {
    const res = await list('/courses', cursorOf(2 ** 41, 'crs_a'));
    expect(res.status, res.text).toBe(200);
  });
});

describe('columnValueProblem for a text sort column (no area sorts by one yet)', () => {
  const title = { type: 'string', description: 'Title', max: 10 } as const;
  it.each([
    ['a short string', 'abc', undefined],
    ['a string longer than the field allows', 'x'.repeat(11), 'a string of at most 10 characters, without NUL'],
    ['a NUL character, which PostgreSQL text cannot hold', 'a\u0000b', 'a string of at most 10 characters, without NUL'],
    ['a number', 5, 'a string of at most 10 characters, without NUL'],
  ])('%s', (_why, value, problem) => {
    expect(columnValueProblem(title, value)).toBe(problem);
  });
});
