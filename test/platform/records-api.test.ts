/**
 * Writing records through /api/v1 with an owner token, over real HTTP:
 * create/read/change/delete, input validation, unique keys, references,
 * restricted deletes, cascades and derived fields.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AreaDef } from '../../src/platform/areas.ts';
import type { FieldDef } from '../../src/platform/fields.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { areaOf, expectError, expectView, future, marker, startRecordsServer, type RecordMaker, type RecordsServer, api } from '../helpers/records.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A value as the API echoes it back. */
function echoed(f: FieldDef, v: unknown): unknown {
  if (f.type === 'email' && typeof v === 'string') return v.toLowerCase();
  if (f.type === 'datetime' && typeof v === 'string') return new Date(v).toISOString();
  return v;
}

/** The slug a record gets from its title when none is given, written out by hand: accents dropped, punctuation a dash. */
const SLUG_OF_TITLE: Record<string, string> = { 'Practical Rust': 'practical-rust', 'Crème Brûlée, Step by Step!': 'creme-brulee-step-by-step' };

/** A new record: every field present, given ones echoed, defaults filled in, the rest null. */
function expectCreated(area: AreaDef, input: Record<string, unknown>, rec: Record<string, unknown>) {
  expectView(area, rec, 'full');
  expect(rec.id).toMatch(new RegExp(`^${area.idPrefix}_[A-Za-z0-9_-]+$`));
  for (const [name, f] of Object.entries(area.fields)) {
    if (name in input) expect(rec[name], name).toEqual(echoed(f, input[name]));
    else if (f.default !== undefined) expect(rec[name], name).toEqual(f.default);
    else if (name === 'slug') expect(rec.slug).toMatch(new RegExp(`^${SLUG_OF_TITLE[String(input.title)] ?? 'no slug stated for this title'}(-[0-9a-f]{6})?$`));
    else if (!f.readOnly) expect(rec[name], name).toBeNull();
  }
  expect(rec.created_at).toMatch(ISO);
  expect(rec.updated_at).toBe(rec.created_at);
}

interface CrudCase {
  area: string;
  input: (m: RecordMaker) => Promise<Record<string, unknown>>;
  patch: Record<string, unknown>;
}

const id = async (m: RecordMaker, area: string, extra: Record<string, unknown> = {}) => String((await m.make(area, extra)).id);

const CRUD: CrudCase[] = [
  {
    area: 'courses',
    input: async () => ({ title: 'Practical Rust', summary: 'Ownership and borrowing', level: 'intermediate', price_cents: 4900, lecturer_ids: ['lec_1'] }),
    patch: { status: 'published', price_cents: 5900 },
  },
  {
    area: 'lecturers',
    input: async () => ({ name: 'Ada Lovelace', email: `Ada.${marker()}@School.TEST`, expertise: ['maths'], avatar_url: 'https://img.example.test/ada.png' }),
    patch: { headline: 'Analyst' },
  },
  { area: 'students', input: async () => ({ name: 'Sam Student', email: `sam.${marker()}@example.test` }), patch: { status: 'suspended', notes: 'Paused at their request' } },
  { area: 'enrollments', input: async (m) => ({ student_id: await id(m, 'students'), course_id: await id(m, 'courses') }), patch: { access_expires_at: future(60) } },
  { area: 'coupons', input: async () => ({ code: `SPRING-${marker()}`, percent_off: 20, valid_until: future(10) }), patch: { active: false } },
  { area: 'events', input: async () => ({ title: 'Live Q&A', starts_at: future(3), online_url: 'https://meet.example.test/qa', location: 'Online' }), patch: { capacity: 30 } },
  { area: 'posts', input: async () => ({ title: 'Crème Brûlée, Step by Step!', body: '# Hi', author_name: 'Ada' }), patch: { status: 'published', published_at: future(0) } },
  { area: 'pages', input: async () => ({ title: 'About us', slug: `about-${marker()}` }), patch: { body: 'We teach.' } },
  { area: 'membership_plans', input: async () => ({ name: 'Pro', interval: 'year', benefits: ['All courses', 'Live events'], price_cents: 9900 }), patch: { status: 'archived' } },
  { area: 'digital_products', input: async () => ({ name: 'Workbook', format: 'PDF', price_cents: 1500 }), patch: { description: 'Exercises with answers' } },
  {
    area: 'subscriptions',
    input: async (m) => ({ student_id: await id(m, 'students'), plan_id: await id(m, 'membership_plans'), current_period_end: future(30) }),
    patch: { status: 'cancelled', cancelled_at: future(0) },
  },
  { area: 'event_attendees', input: async (m) => ({ event_id: await id(m, 'events'), name: 'Guest', email: `Guest.${marker()}@Example.test` }), patch: { name: 'Guest of honour' } },
  { area: 'sections', input: async (m) => ({ course_id: await id(m, 'courses'), title: 'Getting started', position: 1 }), patch: { title: 'First steps' } },
  {
    area: 'lessons',
    input: async (m) => ({ section_id: await id(m, 'sections'), title: 'Installing', kind: 'video', duration_minutes: 12, content: 'Run the installer.' }),
    patch: { free_preview: true },
  },
];

interface InvalidCase {
  area: string;
  why: string;
  body: Record<string, unknown> | ((m: RecordMaker) => Promise<Record<string, unknown>> | Record<string, unknown>);
}

const INVALID_CREATES: InvalidCase[] = [
  { area: 'courses', why: 'title is required', body: { summary: 'No title' } },
  { area: 'courses', why: 'title must be a string, not a number', body: { title: 42 } },
  { area: 'courses', why: 'title may not be empty', body: { title: '' } },
  { area: 'courses', why: 'title is longer than 200 characters', body: { title: 'x'.repeat(201) } },
  { area: 'courses', why: 'price_cents must be a JSON integer, not a numeric string', body: { title: 'T', price_cents: '4900' } },
  { area: 'courses', why: 'price_cents must be a JSON integer, not a boolean', body: { title: 'T', price_cents: true } },
  { area: 'courses', why: 'price_cents must be a whole number', body: { title: 'T', price_cents: 12.5 } },
  { area: 'courses', why: 'price_cents may not be negative', body: { title: 'T', price_cents: -1 } },
  { area: 'courses', why: 'lecturer_ids must be an array, not a string', body: { title: 'T', lecturer_ids: 'lec_1' } },
  { area: 'courses', why: 'level "expert" is not one of its values', body: { title: 'T', level: 'expert' } },
  { area: 'courses', why: 'status "live" is not one of its values', body: { title: 'T', status: 'live' } },
  { area: 'courses', why: 'bogus is not a field of courses', body: { title: 'T', bogus: 1 } },
  { area: 'courses', why: 'id is chosen by the server', body: { title: 'T', id: 'crs_mine' } },
  { area: 'courses', why: 'created_at is set by the server', body: { title: 'T', created_at: future(0) } },
  { area: 'coupons', why: 'times_redeemed is read-only', body: () => ({ code: marker('C'), times_redeemed: 5 }) },
  { area: 'coupons', why: 'active must be a JSON boolean, not a string', body: () => ({ code: marker('C'), active: 'false' }) },
  { area: 'coupons', why: 'percent_off may not exceed 100', body: () => ({ code: marker('C'), percent_off: 150 }) },
  { area: 'students', why: 'email is required', body: { name: 'No email' } },
  { area: 'students', why: 'email "not-an-email" is not an email address', body: { name: 'N', email: 'not-an-email' } },
  { area: 'students', why: 'user_id is read-only (set when a Lyceum account is linked)', body: () => ({ name: 'N', email: `${marker()}@example.test`, user_id: 'usr_x' }) },
  { area: 'lecturers', why: 'avatar_url must be an http(s) URL, not javascript:', body: { name: 'L', avatar_url: 'javascript:alert(1)' } },
  { area: 'lecturers', why: 'avatar_url must be a URL', body: { name: 'L', avatar_url: 'not a url' } },
  { area: 'lecturers', why: 'email "lecturer@" is not an email address', body: { name: 'L', email: 'lecturer@' } },
  { area: 'events', why: 'starts_at must be an RFC 3339 date-time', body: { title: 'E', starts_at: 'next tuesday' } },
  { area: 'events', why: 'online_url must be an http(s) URL', body: { title: 'E', starts_at: future(1), online_url: 'ftp://files.example.test/x' } },
  { area: 'lessons', why: 'course_id is derived from the section and never accepted', body: async (m) => ({ section_id: await id(m, 'sections'), title: 'L', course_id: await id(m, 'courses') }) },
  { area: 'lessons', why: 'free_preview must be a JSON boolean, not a string', body: async (m) => ({ section_id: await id(m, 'sections'), title: 'L', free_preview: 'true' }) },
  {
    area: 'enrollments',
    why: 'progress_percent is read-only (computed from lesson completions)',
    body: async (m) => ({ student_id: await id(m, 'students'), course_id: await id(m, 'courses'), progress_percent: 40 }),
  },
  {
    area: 'enrollments',
    why: 'completed_at is read-only (set when the last lesson is completed)',
    body: async (m) => ({ student_id: await id(m, 'students'), course_id: await id(m, 'courses'), completed_at: future(1) }),
  },
];

const INVALID_PATCHES: { why: string; body: Record<string, unknown> }[] = [
  { why: 'an empty patch changes nothing', body: {} },
  { why: 'bogus is not a field of courses', body: { bogus: 1 } },
  { why: 'price_cents must be a JSON integer, not a string', body: { price_cents: '100' } },
  { why: 'title may not be emptied', body: { title: '' } },
  { why: 'title may not be null', body: { title: null } },
  { why: 'level "expert" is not one of its values', body: { level: 'expert' } },
  { why: 'id cannot be changed', body: { id: 'crs_other' } },
  { why: 'lecturer_ids must be an array of strings', body: { lecturer_ids: [1, 2] } },
];

describe.each(STORE_KINDS)('records API (%s)', (kind) => {
  let ctx: RecordsServer;

  beforeAll(async () => {
    ctx = await startRecordsServer(kind);
  });
  afterAll(() => ctx?.server.stop());

  for (const { area: name, input, patch } of CRUD) {
    it(`${name}: create 201 echoes the input with defaults, get 200, patch 200 changes only the given fields, delete 204 then 404`, async () => {
      const area = areaOf(name);
      const body = await input(ctx.maker);
      const created = await ctx.owner('POST', area.path, body);
      expect(created.status, created.text).toBe(201);
      expectCreated(area, body, created.json);
      const path = `${area.path}/${String(created.json.id)}`;

      const read = await ctx.owner('GET', path);
      expect(read.status, read.text).toBe(200);
      expect(read.json).toEqual(created.json);

      const changed = await ctx.owner('PATCH', path, patch);
      expect(changed.status, changed.text).toBe(200);
      const echo = Object.fromEntries(Object.entries(patch).map(([k, v]) => [k, echoed(area.fields[k]!, v)]));
      expect(changed.json).toEqual({ ...created.json, ...echo, updated_at: expect.stringMatching(ISO) });
      expect(Date.parse(String(changed.json.updated_at))).toBeGreaterThanOrEqual(Date.parse(String(created.json.updated_at)));
      expect((await ctx.owner('GET', path)).json).toEqual(changed.json);

      const deleted = await ctx.owner('DELETE', path);
      expect(deleted.status, deleted.text).toBe(204);
      expect(deleted.text).toBe('');
      expectError(await ctx.owner('GET', path), 404, 'not_found');
      expectError(await ctx.owner('DELETE', path), 404, 'not_found');
    });
  }

  describe('validation', () => {
    for (const { area: name, why, body } of INVALID_CREATES) {
      it(`POST ${areaOf(name).path} is refused 400 because ${why}`, async () => {
        const area = areaOf(name);
        const payload = typeof body === 'function' ? await body(ctx.maker) : body;
        const before = await ctx.count(name);
        const res = await ctx.owner('POST', area.path, payload);
        expectError(res, 400, 'invalid_request');
        expect(await ctx.count(name), 'nothing was stored').toBe(before);
      });
    }

    for (const { why, body } of INVALID_PATCHES) {
      it(`PATCH /courses/:id is refused 400 because ${why}, and the course is unchanged`, async () => {
        const course = await ctx.maker.make('courses', { summary: 'Kept as is' });
        const res = await ctx.owner('PATCH', `/courses/${String(course.id)}`, body);
        expectError(res, 400, 'invalid_request');
        expect((await ctx.owner('GET', `/courses/${String(course.id)}`)).json).toEqual(course);
      });
    }

    for (const { path, patch } of [
      { path: '/courses/crs_doesnotexist', patch: { title: 'Ghost' } },
      { path: '/students/stu_doesnotexist', patch: { name: 'Ghost' } },
      { path: '/curriculum/lessons/les_doesnotexist', patch: { title: 'Ghost' } },
    ]) {
      it(`GET, PATCH and DELETE ${path} are 404 not_found: there is no such record`, async () => {
        expectError(await ctx.owner('GET', path), 404, 'not_found');
        expectError(await ctx.owner('PATCH', path, patch), 404, 'not_found');
        expectError(await ctx.owner('DELETE', path), 404, 'not_found');
      });
    }
  });

  describe('unique values', () => {
    it('a second student with the same email (in other case) is refused 409: emails are unique', async () => {
      const email = `twin.${marker()}@example.test`;
      const first = await ctx.owner('POST', '/students', { name: 'One', email });
      expect(first.status, first.text).toBe(201);
      const before = await ctx.count('students');
      expectError(await ctx.owner('POST', '/students', { name: 'Two', email: email.toUpperCase() }), 409, 'conflict');
      expect(await ctx.count('students')).toBe(before);
      const other = await ctx.maker.make('students');
      expectError(await ctx.owner('PATCH', `/students/${String(other.id)}`, { email }), 409, 'conflict');
      expect((await ctx.owner('GET', `/students/${String(other.id)}`)).json).toEqual(other);
    });

    it('a second coupon with the same code is refused 409: codes are unique', async () => {
      const code = marker('SAVE');
      expect((await ctx.owner('POST', '/coupons', { code, percent_off: 10 })).status).toBe(201);
      expectError(await ctx.owner('POST', '/coupons', { code, percent_off: 50 }), 409, 'conflict');
    });

    it('a slug made up from a long title is cut to its first 100 characters', async () => {
      const res = await ctx.owner('POST', '/courses', { title: 'Abcdefghij '.repeat(12).trim() });
      expect(res.status).toBe(201);
      expect(res.json.slug).toBe(`${'abcdefghij-'.repeat(9)}a`);
    });

    it('a course slug given twice is refused 409 (create and patch), while titles alone get distinct slugs', async () => {
      const slug = `rust-${marker()}`;
      const first = await ctx.owner('POST', '/courses', { title: 'Rust', slug });
      expect(first.json.slug).toBe(slug);
      const taken = { error: 'conflict', error_description: 'Another course already has this slug' };
      const again = await ctx.owner('POST', '/courses', { title: 'Rust again', slug });
      expect({ status: again.status, body: again.json }).toEqual({ status: 409, body: taken });
      const other = await ctx.maker.make('courses');
      const patched = await ctx.owner('PATCH', `/courses/${String(other.id)}`, { slug });
      expect({ status: patched.status, body: patched.json }).toEqual({ status: 409, body: taken });
      expect((await ctx.owner('GET', `/courses/${String(other.id)}`)).json).toEqual(other);

      const m = marker();
      const title = `Same Title ${m}`;
      const a = await ctx.owner('POST', '/courses', { title });
      const b = await ctx.owner('POST', '/courses', { title });
      expect([a.status, b.status]).toEqual([201, 201]);
      expect(a.json.slug).toBe(`same-title-${m}`);
      expect(b.json.slug).not.toBe(a.json.slug);
    });

    it('a slug made from a title drops the dashes at its ends, and a title without letters or digits gets "item"', async () => {
      const m = marker();
      const dashed = await ctx.owner('POST', '/courses', { title: `--${m} Dashes!--` });
      expect({ status: dashed.status, slug: dashed.json.slug }).toEqual({ status: 201, slug: `${m}-dashes` });
      const symbols = await ctx.owner('POST', '/courses', { title: '¡¿ -- ?!' });
      expect(symbols.status).toBe(201);
      // Another test's course may hold "item" already; then a suffix is added.
      expect(symbols.json.slug).toMatch(/^item(-[0-9a-f]{6})?$/);
    });

    it('enrolling the same student in the same course twice is refused 409', async () => {
      const body = { student_id: await id(ctx.maker, 'students'), course_id: await id(ctx.maker, 'courses') };
      expect((await ctx.owner('POST', '/enrollments', body)).status).toBe(201);
      expectError(await ctx.owner('POST', '/enrollments', body), 409, 'conflict');
    });
  });

  describe('references', () => {
    it('an enrollment in a course that does not exist is refused 400', async () => {
      const before = await ctx.count('enrollments');
      const student = await id(ctx.maker, 'students');
      expectError(await ctx.owner('POST', '/enrollments', { student_id: student, course_id: 'crs_missing' }), 400, 'invalid_request');
      expectError(await ctx.owner('POST', '/enrollments', { student_id: 'stu_missing', course_id: await id(ctx.maker, 'courses') }), 400, 'invalid_request');
      expect(await ctx.count('enrollments')).toBe(before);

      const enrollment = await ctx.maker.make('enrollments');
      expectError(await ctx.owner('PATCH', `/enrollments/${String(enrollment.id)}`, { course_id: 'crs_missing' }), 400, 'invalid_request');
      expect((await ctx.owner('GET', `/enrollments/${String(enrollment.id)}`)).json).toEqual(enrollment);
    });

    it('a lesson in a missing section and a product with a missing file are refused 400', async () => {
      expectError(await ctx.owner('POST', '/curriculum/lessons', { section_id: 'sec_missing', title: 'L' }), 400, 'invalid_request');
      expectError(await ctx.owner('POST', '/digital-products', { name: 'P', file_id: 'fil_missing' }), 400, 'invalid_request');
      expectError(await ctx.owner('POST', '/subscriptions', { student_id: await id(ctx.maker, 'students'), plan_id: 'pln_missing' }), 400, 'invalid_request');
    });
  });

  describe('deletes', () => {
    it('a course with enrollments cannot be deleted (409) until they are removed', async () => {
      const enrollment = await ctx.maker.make('enrollments');
      const course = `/courses/${String(enrollment.course_id)}`;
      expectError(await ctx.owner('DELETE', course), 409, 'conflict');
      expect((await ctx.owner('GET', course)).status).toBe(200);
      expect((await ctx.owner('DELETE', `/enrollments/${String(enrollment.id)}`)).status).toBe(204);
      expect((await ctx.owner('DELETE', course)).status).toBe(204);
    });

    it('a student with orders cannot be deleted (409), and nothing of theirs is removed', async () => {
      const enrollment = await ctx.maker.make('enrollments');
      const studentId = String(enrollment.student_id);
      await ctx.maker.insert(areaOf('orders'), { student_id: studentId, items: [{ kind: 'course', id: 'crs_x', name: 'X', price_cents: 100 }], total_cents: 100, currency: 'EUR', status: 'paid' });
      expectError(await ctx.owner('DELETE', `/students/${studentId}`), 409, 'conflict');
      expect((await ctx.owner('GET', `/students/${studentId}`)).status).toBe(200);
      expect((await ctx.owner('GET', `/enrollments/${String(enrollment.id)}`)).status, 'restrict is checked before any cascade').toBe(200);
    });

    it('a student or plan with subscriptions cannot be deleted (409)', async () => {
      const sub = await ctx.maker.make('subscriptions');
      expectError(await ctx.owner('DELETE', `/students/${String(sub.student_id)}`), 409, 'conflict');
      expectError(await ctx.owner('DELETE', `/membership-plans/${String(sub.plan_id)}`), 409, 'conflict');
    });

    it('deleting a course removes its sections and their lessons', async () => {
      const courseId = await id(ctx.maker, 'courses');
      const sections = [await ctx.maker.make('sections', { course_id: courseId }), await ctx.maker.make('sections', { course_id: courseId })];
      const lessons = [
        await ctx.maker.make('lessons', { section_id: sections[0]!.id }),
        await ctx.maker.make('lessons', { section_id: sections[0]!.id }),
        await ctx.maker.make('lessons', { section_id: sections[1]!.id }),
      ];
      const keep = await ctx.maker.make('lessons');
      expect((await ctx.owner('DELETE', `/courses/${courseId}`)).status).toBe(204);
      for (const s of sections) expectError(await ctx.owner('GET', `/curriculum/sections/${String(s.id)}`), 404, 'not_found');
      for (const l of lessons) expectError(await ctx.owner('GET', `/curriculum/lessons/${String(l.id)}`), 404, 'not_found');
      expect(await ctx.server.deps.store.records.count('sections', [['course_id', '=', courseId]])).toBe(0);
      expect(await ctx.server.deps.store.records.count('lessons', [['course_id', '=', courseId]])).toBe(0);
      expect((await ctx.owner('GET', `/curriculum/lessons/${String(keep.id)}`)).status, 'other courses keep theirs').toBe(200);
    });

    it('deleting a student removes their enrollments and event registrations; deleting an event removes its attendees', async () => {
      const enrollment = await ctx.maker.make('enrollments');
      const studentId = String(enrollment.student_id);
      const attendee = await ctx.maker.make('event_attendees', { student_id: studentId });
      expect((await ctx.owner('DELETE', `/students/${studentId}`)).status).toBe(204);
      expectError(await ctx.owner('GET', `/enrollments/${String(enrollment.id)}`), 404, 'not_found');
      expectError(await ctx.owner('GET', `/event-attendees/${String(attendee.id)}`), 404, 'not_found');
      expect((await ctx.owner('GET', `/courses/${String(enrollment.course_id)}`)).status, 'the course stays').toBe(200);

      const other = await ctx.maker.make('event_attendees');
      expect((await ctx.owner('DELETE', `/events/${String(other.event_id)}`)).status).toBe(204);
      expectError(await ctx.owner('GET', `/event-attendees/${String(other.id)}`), 404, 'not_found');
    });
  });

  it("a lesson's course_id comes from its section, and follows it when the lesson moves", async () => {
    const courseA = await id(ctx.maker, 'courses');
    const courseB = await id(ctx.maker, 'courses');
    const sectionA = await id(ctx.maker, 'sections', { course_id: courseA });
    const sectionB = await id(ctx.maker, 'sections', { course_id: courseB });
    const lesson = await ctx.owner('POST', '/curriculum/lessons', { section_id: sectionA, title: 'Moving lesson' });
    expect(lesson.status, lesson.text).toBe(201);
    expect(lesson.json.course_id).toBe(courseA);

    const moved = await ctx.owner('PATCH', `/curriculum/lessons/${String(lesson.json.id)}`, { section_id: sectionB });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.json).toMatchObject({ section_id: sectionB, course_id: courseB });
    const inB = await ctx.owner('GET', `/curriculum/lessons?course_id=${courseB}`);
    expect(inB.data.map((l) => l.id)).toEqual([lesson.json.id]);
    expect((await ctx.owner('GET', `/curriculum/lessons?course_id=${courseA}`)).data).toEqual([]);
  });
});

/**
 * The handlers of the generic record routes, on a server started inside the
 * test (they are bound while it is built): create, read, list with paging,
 * search and filters, change and delete answer with the record.
 */
describe('record route handlers', () => {
  it('create, read, list, change and delete a course', async () => {
    const { server, owner, anonymous } = await startRecordsServer('sqlite');
    try {
      const made = await owner('POST', '/courses', { title: 'Handler Probe Alpha', level: 'advanced', language: 'de', status: 'published' });
      expect(made.status, made.text).toBe(201);
      expect(made.json).toMatchObject({ title: 'Handler Probe Alpha', slug: 'handler-probe-alpha', level: 'advanced', language: 'de', status: 'published' });
      const id = made.json.id as string;
      const other = await owner('POST', '/courses', { title: 'Handler Probe Beta', level: 'beginner', status: 'draft' });
      expect(other.status, other.text).toBe(201);

      const read = await owner('GET', `/courses/${id}`);
      expect(read.status, read.text).toBe(200);
      expect(read.json).toEqual(made.json);

      const first = await owner('GET', '/courses?limit=1');
      expect(first.status, first.text).toBe(200);
      expect(first.data).toHaveLength(1);
      expect(first.json.next_cursor).toEqual(expect.any(String));
      const second = await owner('GET', `/courses?limit=1&cursor=${encodeURIComponent(first.json.next_cursor as string)}`);
      expect(second.status, second.text).toBe(200);
      expect([first.data[0]!.id, second.data[0]!.id].sort()).toEqual([id, other.json.id].sort());
      expect((await owner('GET', '/courses?q=Beta')).data.map((r) => r.id)).toEqual([other.json.id]);
      expect((await owner('GET', '/courses?level=advanced')).data.map((r) => r.id)).toEqual([id]);
      expect((await owner('GET', '/courses?language=de&status=published')).data.map((r) => r.id)).toEqual([id]);
      expect((await anonymous('GET', '/courses')).data.map((r) => r.id)).toEqual([id]);

      const changed = await owner('PATCH', `/courses/${id}`, { title: 'Handler Probe Gamma' });
      expect(changed.status, changed.text).toBe(200);
      expect(changed.json).toMatchObject({ id, title: 'Handler Probe Gamma', slug: 'handler-probe-alpha', level: 'advanced' });

      const gone = await owner('DELETE', `/courses/${id}`);
      expect({ status: gone.status, text: gone.text }).toEqual({ status: 204, text: '' });
      expect((await owner('GET', `/courses/${id}`)).status).toBe(404);
    } finally {
      await server.stop();
    }
  });
});

/**
 * What a client reads at the edges of the record service: cursors of the
 * wrong shape, a reference to nothing, a duplicate pair, and an upcoming
 * public record at the very millisecond it starts.
 */
const cursorOf = (key: unknown[]) => Buffer.from(JSON.stringify(key)).toString('base64url');

describe('record service edges', () => {
  let ctx: RecordsServer;
  beforeAll(async () => {
    ctx = await startRecordsServer('sqlite');
  });
  afterAll(() => ctx?.server.stop());

  it('refuses a cursor of three parts, or whose id starts with a character ids never hold', async () => {
    for (const key of [
      [0, 'sec_abc', 'more'],
      [0, '!sec_abc'],
      [0, 'sec abc'],
    ]) {
      const res = await ctx.owner('GET', `/curriculum/sections?cursor=${cursorOf(key)}`);
      expect({ key, status: res.status, body: res.json }).toEqual({ key, status: 400, body: { error: 'invalid_request', error_description: 'cursor is not one this API returned' } });
    }
  });

  it('refuses an enum filter outside its values before the list runs, for a token and for anyone', async () => {
    const refused = { error: 'invalid_request', error_description: 'Invalid request: query.status: Invalid option: expected one of "draft"|"published"|"archived".' };
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
