/**
 * What a client reads at the edges of the record service: cursors of the
 * wrong shape, a reference to nothing, a duplicate pair, and an upcoming
 * public record at the very millisecond it starts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startRecordsServer, type RecordsServer } from '../helpers/records.ts';

const cursorOf = (key: unknown[]) => Buffer.from(JSON.stringify(key)).toString('base64url');

describe('record service edges', () => {
  let ctx: RecordsServer;
  beforeAll(async () => {
    ctx = await startRecordsServer('sqlite');
  });
  afterAll(() => ctx?.server.stop());

  it('refuses a cursor of three parts, or whose id starts with a character ids never hold', async () => {
    for (const key of [[0, 'sec_abc', 'more'], [0, '!sec_abc'], [0, 'sec abc']]) {
      const res = await ctx.owner('GET', `/curriculum/sections?cursor=${cursorOf(key)}`);
      expect({ key, status: res.status, body: res.json }).toEqual({ key, status: 400, body: { error: 'invalid_request', error_description: 'cursor is not one this API returned' } });
    }
  });

  it('refuses an enum filter outside its values before the list runs, for a token and for anyone', async () => {
    const refused = { error: 'invalid_request', error_description: 'Invalid request: querystring/status must be equal to one of the allowed values.' };
    for (const res of [await ctx.owner('GET', '/courses?status=bogus'), await api(ctx.server.issuer, 'GET', '/courses?status=bogus')]) {
      expect({ status: res.status, body: res.json }).toEqual({ status: 400, body: refused });
    }
  });

  it('names the referenced record in plain words when it does not exist', async () => {
    const student = await ctx.maker.make('students');
    const res = await ctx.owner('POST', '/subscriptions', { student_id: student.id, plan_id: 'pln_none' });
    expect({ status: res.status, body: res.json }).toEqual({ status: 400, body: { error: 'invalid_request', error_description: 'plan_id: no membership plan with id pln_none' } });
  });

  it('names the unique pair a changed enrollment would repeat', async () => {
    const course = await ctx.maker.make('courses');
    const [a, b] = [await ctx.maker.make('students'), await ctx.maker.make('students')];
    await ctx.maker.make('enrollments', { student_id: a.id, course_id: course.id });
    const other = await ctx.maker.make('enrollments', { student_id: b.id, course_id: course.id });
    const res = await ctx.owner('PATCH', `/enrollments/${String(other.id)}`, { student_id: a.id });
    expect({ status: res.status, error: res.json.error, description: res.json.error_description }).toEqual({
      status: 409,
      error: 'conflict',
      description: 'Another enrollment already has this student_id,course_id',
    });
  });

  it('shows an upcoming public event at the millisecond it starts, and not one after', async () => {
    const resume = ctx.server.freeze();
    try {
      const event = await ctx.maker.make('events', { status: 'published', starts_at: '2100-01-01T00:00:00.000Z' });
      const path = `/events/${String(event.id)}`;
      // created_at is the server's (stopped) clock.
      const now = Date.parse(String(event.created_at));
      expect((await ctx.owner('PATCH', path, { starts_at: new Date(now).toISOString() })).status).toBe(200);
      expect((await api(ctx.server.issuer, 'GET', path)).status).toBe(200);
      expect((await ctx.owner('PATCH', path, { starts_at: new Date(now - 1).toISOString() })).status).toBe(200);
      expect((await api(ctx.server.issuer, 'GET', path)).status).toBe(404);
    } finally {
      resume();
    }
  });
});
