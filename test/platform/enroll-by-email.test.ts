/**
 * POST /api/v1/enrollments/by-email and its bulk form over real HTTP on each
 * store: an upsert of the student and the enrollment, per-row results, the
 * row limit, and racing calls that make one student and one enrollment.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BULK_ENROLL_LIMIT } from '../../src/platform/progress/enroll-by-email.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { expectError, marker, startRecordsServer, type RecordsServer } from '../helpers/records.ts';

describe.each(STORE_KINDS)('enrolment by email on %s', (kind) => {
  let s: RecordsServer;
  const course = async () => String((await s.owner('POST', '/courses', { title: `Course ${marker()}`, status: 'published' })).json.id);
  const studentsWith = (email: string) => s.server.deps.store.records.count('students', [['email', '=', email]]);
  const enrollmentsOf = (courseId: string) => s.server.deps.store.records.count('enrollments', [['course_id', '=', courseId]]);

  beforeAll(async () => {
    s = await startRecordsServer(kind);
  });

  afterAll(async () => {
    await s?.server.close();
  });

  it('a new email makes a student and an enrollment (201); the same call again answers the existing enrollment (200)', async () => {
    const courseId = await course();
    const email = `New.${marker()}@Learners.test`;
    const first = await s.owner('POST', '/enrollments/by-email', { email, course_id: courseId, name: 'Nora New' });
    expect(first.status, first.text).toBe(201);
    expect(first.json).toMatchObject({
      created_student: true,
      created_enrollment: true,
      student: { name: 'Nora New', email: email.toLowerCase() },
      enrollment: { course_id: courseId, progress_percent: 0, completed_at: null, access_expires_at: null },
    });
    const again = await s.owner('POST', '/enrollments/by-email', { email: email.toUpperCase(), course_id: courseId, name: 'Other Name' });
    expect(again.status, again.text).toBe(200);
    expect(again.json).toMatchObject({ created_student: false, created_enrollment: false, student: { name: 'Nora New' }, enrollment: { id: (first.json.enrollment as { id: string }).id } });
    expect(await studentsWith(email.toLowerCase())).toBe(1);
    expect(await enrollmentsOf(courseId)).toBe(1);
  });

  it('an existing student is enrolled without a new student record, and named by email when no name is given', async () => {
    const courseId = await course();
    const email = `known.${marker()}@learners.test`;
    const existing = await s.owner('POST', '/students', { name: 'Kim Known', email });
    const res = await s.owner('POST', '/enrollments/by-email', { email, course_id: courseId });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ created_student: false, created_enrollment: true, student: { id: existing.json.id, name: 'Kim Known' }, enrollment: { student_id: existing.json.id } });
    const unnamed = `unnamed.${marker()}@learners.test`;
    const made = await s.owner('POST', '/enrollments/by-email', { email: unnamed, course_id: courseId });
    expect(made.json).toMatchObject({ created_student: true, student: { name: unnamed.split('@')[0] } });
  });

  it('an unknown course or a malformed email is 400 and writes nothing', async () => {
    const email = `nobody.${marker()}@learners.test`;
    const res = await s.owner('POST', '/enrollments/by-email', { email, course_id: 'crs_missing' });
    expectError(res, 400, 'invalid_request');
    expect(res.json.error_description).toBe('course_id: no course with id crs_missing');
    expect(await studentsWith(email)).toBe(0);
    expectError(await s.owner('POST', '/enrollments/by-email', { email: 'not-an-email', course_id: await course() }), 400, 'invalid_request');
    expectError(await s.owner('POST', '/enrollments/by-email', { email, course_id: await course(), extra: 1 }), 400, 'invalid_request');
  });

  it('racing calls for one new email make one student and one enrollment, and every call succeeds', async () => {
    const courseId = await course();
    const email = `race.${marker()}@learners.test`;
    const results = await Promise.all(Array.from({ length: 8 }, () => s.owner('POST', '/enrollments/by-email', { email, course_id: courseId })));
    for (const r of results) expect([200, 201], r.text).toContain(r.status);
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(new Set(results.map((r) => (r.json.enrollment as { id: string }).id)).size).toBe(1);
    expect(await studentsWith(email)).toBe(1);
    expect(await enrollmentsOf(courseId)).toBe(1);
  });

  it('bulk answers one result per row in order: created, existing and invalid, with counts', async () => {
    const courseId = await course();
    const already = `already.${marker()}@learners.test`;
    await s.owner('POST', '/enrollments/by-email', { email: already, course_id: courseId });
    const fresh = `fresh.${marker()}@learners.test`;
    const named = `named.${marker()}@learners.test`;
    const res = await s.owner('POST', '/enrollments/by-email/bulk', {
      course_id: courseId,
      emails: [fresh, already, 'not an email', fresh.toUpperCase()],
      students: [{ email: named, name: 'Nia Named' }],
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.counts).toEqual({ created: 2, existing: 2, invalid: 1 });
    const rows = res.json.results as Record<string, unknown>[];
    expect(rows.map((r) => [r.email, r.status])).toEqual([
      [fresh, 'created'],
      [already, 'existing'],
      ['not an email', 'invalid'],
      [fresh, 'existing'],
      [named, 'created'],
    ]);
    expect(rows[0]).toMatchObject({ created_student: true, enrollment_id: expect.stringMatching(/^enr_/), student_id: expect.stringMatching(/^stu_/) });
    expect(rows[2]).toEqual({ email: 'not an email', status: 'invalid', error: 'not an email address' });
    expect(rows[3]!.enrollment_id).toBe(rows[0]!.enrollment_id);
    expect(await enrollmentsOf(courseId)).toBe(3);
    const student = await s.server.deps.store.records.select('students', ['name'], [['email', '=', named]]);
    expect(student).toEqual([{ name: 'Nia Named' }]);
  });

  it(`bulk takes at most ${BULK_ENROLL_LIMIT} rows: one more is 400 and writes nothing; no rows is 400`, async () => {
    const courseId = await course();
    const emails = Array.from({ length: BULK_ENROLL_LIMIT + 1 }, (_, i) => `over${i}.${marker()}@learners.test`);
    expectError(await s.owner('POST', '/enrollments/by-email/bulk', { course_id: courseId, emails }), 400, 'invalid_request');
    const split = await s.owner('POST', '/enrollments/by-email/bulk', { course_id: courseId, emails: emails.slice(0, 300), students: emails.slice(300).map((email) => ({ email })) });
    expectError(split, 400, 'invalid_request');
    expect(split.json.error_description).toBe(`At most ${BULK_ENROLL_LIMIT} rows per call; send the rest in another call`);
    expect(await enrollmentsOf(courseId)).toBe(0);
    expectError(await s.owner('POST', '/enrollments/by-email/bulk', { course_id: courseId, emails: [] }), 400, 'invalid_request');
    expectError(await s.owner('POST', '/enrollments/by-email/bulk', { course_id: 'crs_missing', emails: ['a@b.test'] }), 400, 'invalid_request');
  });

  it(`bulk of ${BULK_ENROLL_LIMIT} new emails enrolls them all`, async () => {
    const courseId = await course();
    const emails = Array.from({ length: BULK_ENROLL_LIMIT }, (_, i) => `many${i}.${marker()}@learners.test`);
    const res = await s.owner('POST', '/enrollments/by-email/bulk', { course_id: courseId, emails });
    expect(res.status, res.text).toBe(200);
    expect(res.json.counts).toEqual({ created: BULK_ENROLL_LIMIT, existing: 0, invalid: 0 });
    expect(await enrollmentsOf(courseId)).toBe(BULK_ENROLL_LIMIT);
  }, 60_000);

  it('racing bulk calls with the same emails make each student and enrollment once', async () => {
    const courseId = await course();
    const emails = Array.from({ length: 20 }, (_, i) => `overlap${i}.${marker()}@learners.test`);
    const [a, b] = await Promise.all([
      s.owner('POST', '/enrollments/by-email/bulk', { course_id: courseId, emails }),
      s.owner('POST', '/enrollments/by-email/bulk', { course_id: courseId, emails: [...emails].reverse() }),
    ]);
    expect([a!.status, b!.status], `${a!.text} ${b!.text}`).toEqual([200, 200]);
    const created = (r: typeof a) => (r!.json.counts as { created: number }).created;
    expect(created(a) + created(b)).toBe(20);
    expect(await enrollmentsOf(courseId)).toBe(20);
  }, 60_000);
});
