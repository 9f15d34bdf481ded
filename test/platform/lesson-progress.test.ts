/**
 * Lesson completions and enrollment progress over real HTTP on each store:
 * the school's routes (students:*), the learner's own (account:*), the
 * percent rule, completed_at, and access that ends and is extended.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseChallenge } from '../helpers/bearer.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import type { Scope } from '../../src/access/scopes.ts';
import { allScopesBut, api, expectError, future, marker, past, startRecordsServer, tokenSource, type RecordsServer } from '../helpers/records.ts';

const LEARNER_SCOPES = 'account:read account:write';

interface Course {
  id: string;
  lessons: string[];
}

describe.each(STORE_KINDS)('lesson progress on %s', (kind) => {
  let s: RecordsServer;

  /** A published course with `n` lessons over two sections, in curriculum order. */
  async function course(n: number, status = 'published'): Promise<Course> {
    const created = await s.owner('POST', '/courses', { title: `Course ${marker()}`, status });
    const id = String(created.json.id);
    const sections = [];
    for (const position of [0, 1]) sections.push(String((await s.owner('POST', '/curriculum/sections', { course_id: id, title: `S${position}`, position })).json.id));
    const lessons = [];
    for (let i = 0; i < n; i++) {
      const res = await s.owner('POST', '/curriculum/lessons', { section_id: sections[i < n / 2 ? 0 : 1], title: `L${i}`, position: i });
      expect(res.status, res.text).toBe(201);
      lessons.push(String(res.json.id));
    }
    return { id, lessons };
  }

  async function student(email = `${marker()}@learners.test`): Promise<string> {
    const res = await s.owner('POST', '/students', { name: 'Sam', email });
    expect(res.status, res.text).toBe(201);
    return String(res.json.id);
  }

  async function enroll(studentId: string, courseId: string, extra: Record<string, unknown> = {}): Promise<string> {
    const res = await s.owner('POST', '/enrollments', { student_id: studentId, course_id: courseId, ...extra });
    expect(res.status, res.text).toBe(201);
    return String(res.json.id);
  }

  const completion = (enrollmentId: string, lessonId: string) => `/enrollments/${enrollmentId}/lessons/${lessonId}/completion`;

  beforeAll(async () => {
    s = await startRecordsServer(kind);
  });

  afterAll(async () => {
    await s?.server.close();
  });

  describe('scopes', () => {
    const routes: [string, (ids: { e: string; l: string }) => string, string][] = [
      ['PUT', ({ e, l }) => completion(e, l), 'students:write'],
      ['DELETE', ({ e, l }) => completion(e, l), 'students:write'],
      ['GET', ({ e }) => `/enrollments/${e}/progress`, 'students:read'],
      ['PUT', ({ l }) => `/account/lessons/${l}/completion`, 'account:write'],
      ['DELETE', ({ l }) => `/account/lessons/${l}/completion`, 'account:write'],
      ['GET', ({ e }) => `/account/enrollments/${e}/progress`, 'account:read'],
      ['POST', () => '/enrollments/by-email', 'students:write'],
      ['POST', () => '/enrollments/by-email/bulk', 'students:write'],
    ];
    for (const [method, path, scope] of routes) {
      it(`${method} ${path({ e: '{id}', l: '{lesson_id}' })} is 401 without a token and 403 insufficient_scope naming ${scope} without it`, async () => {
        const c = await course(1);
        const e = await enroll(await student(), c.id);
        const ids = { e, l: c.lessons[0]! };
        const studentsBefore = await s.count('students');
        const target = path(ids);
        const body = target.endsWith('/bulk') ? { course_id: c.id, emails: ['a@b.test'] } : target.endsWith('/by-email') ? { course_id: c.id, email: `${marker()}@x.test` } : undefined;
        const anonymous = await api(s.server.issuer, method, target, body ? { body } : {});
        expectError(anonymous, 401, 'invalid_request');
        // Every scope but the one the route needs, so that only that one is missing.
        const lacking = await api(s.server.issuer, method, target, { token: await s.token(allScopesBut(scope as Scope)), ...(body ? { body } : {}) });
        expectError(lacking, 403, 'insufficient_scope');
        expect(parseChallenge(lacking.headers.get('www-authenticate')).params).toMatchObject({ error: 'insufficient_scope', scope });
        // Nothing was written by the refused calls.
        expect((await s.owner('GET', `/enrollments/${e}`)).json).toMatchObject({ progress_percent: 0, completed_at: null });
        expect(await s.count('students')).toBe(studentsBefore);
      });
    }
  });

  it('/openapi.json lists each new operation with its operationId and scope', async () => {
    const doc = (await (await fetch(`${s.server.issuer}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId: string; security: unknown; responses: Record<string, unknown> }>>;
    };
    const expected: [string, string, string, string][] = [
      ['/api/v1/enrollments/{id}/lessons/{lesson_id}/completion', 'put', 'completeEnrollmentLesson', 'students:write'],
      ['/api/v1/enrollments/{id}/lessons/{lesson_id}/completion', 'delete', 'uncompleteEnrollmentLesson', 'students:write'],
      ['/api/v1/enrollments/{id}/progress', 'get', 'getEnrollmentProgress', 'students:read'],
      ['/api/v1/account/lessons/{lesson_id}/completion', 'put', 'completeMyLesson', 'account:write'],
      ['/api/v1/account/lessons/{lesson_id}/completion', 'delete', 'uncompleteMyLesson', 'account:write'],
      ['/api/v1/account/enrollments/{id}/progress', 'get', 'getMyEnrollmentProgress', 'account:read'],
      ['/api/v1/enrollments/by-email', 'post', 'enrollByEmail', 'students:write'],
      ['/api/v1/enrollments/by-email/bulk', 'post', 'enrollByEmailBulk', 'students:write'],
    ];
    for (const [path, method, operationId, scope] of expected) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toMatchObject({ operationId, security: [{ lyceum_oauth: [scope] }] });
      expect(Object.keys(op!.responses), operationId).toEqual(expect.arrayContaining(['401', '403']));
    }
    // 200 an existing enrollment, 201 a new one; 409 and 422 are an Idempotency-Key's, as on every POST.
    expect(Object.keys(doc.paths['/api/v1/enrollments/by-email']!.post!.responses).sort()).toEqual(['200', '201', '400', '401', '403', '409', '422']);
  });

  describe('the school marks lessons', () => {
    it('completion is idempotent, the percent rounds down, and completed_at comes with the last lesson and goes with an undo', async () => {
      const c = await course(3);
      const e = await enroll(await student(), c.id);
      const first = await s.owner('PUT', completion(e, c.lessons[0]!));
      expect(first.status, first.text).toBe(200);
      expect(first.json).toMatchObject({
        lesson_id: c.lessons[0],
        completed: true,
        changed: true,
        completed_lessons: 1,
        total_lessons: 3,
        enrollment: { id: e, progress_percent: 33, completed_at: null },
      });
      const at = first.json.completed_at;
      expect(typeof at).toBe('string');

      s.server.advance(60_000);
      const again = await s.owner('PUT', completion(e, c.lessons[0]!));
      expect(again.status).toBe(200);
      expect(again.json).toMatchObject({ completed: true, changed: false, completed_at: at, enrollment: { progress_percent: 33 } });

      expect((await s.owner('PUT', completion(e, c.lessons[1]!))).json).toMatchObject({ enrollment: { progress_percent: 66, completed_at: null } });
      const last = await s.owner('PUT', completion(e, c.lessons[2]!));
      expect(last.json).toMatchObject({ completed_lessons: 3, enrollment: { progress_percent: 100, completed_at: last.json.completed_at } });

      const undo = await s.owner('DELETE', completion(e, c.lessons[1]!));
      expect(undo.status, undo.text).toBe(200);
      expect(undo.json).toMatchObject({ lesson_id: c.lessons[1], completed: false, completed_at: null, changed: true, completed_lessons: 2, enrollment: { progress_percent: 66, completed_at: null } });
      const undoAgain = await s.owner('DELETE', completion(e, c.lessons[1]!));
      expect(undoAgain.json).toMatchObject({ changed: false, enrollment: { progress_percent: 66 } });

      const stored = await s.owner('GET', `/enrollments/${e}`);
      expect(stored.json).toMatchObject({ progress_percent: 66, completed_at: null });
    });

    it('the progress report lists every lesson in curriculum order with its completion time', async () => {
      const c = await course(4);
      const e = await enroll(await student(), c.id);
      const done = await s.owner('PUT', completion(e, c.lessons[3]!));
      const report = await s.owner('GET', `/enrollments/${e}/progress`);
      expect(report.status, report.text).toBe(200);
      expect(report.json).toMatchObject({
        enrollment_id: e,
        course_id: c.id,
        progress_percent: 25,
        completed_lessons: 1,
        total_lessons: 4,
        completed_at: null,
        access_expires_at: null,
        access_expired: false,
      });
      expect((report.json.lessons as { id: string; completed_at: unknown }[]).map((l) => [l.id, l.completed_at])).toEqual([
        [c.lessons[0], null],
        [c.lessons[1], null],
        [c.lessons[2], null],
        [c.lessons[3], done.json.completed_at],
      ]);
    });

    it('a lesson of another course is 404 and writes nothing; an unknown enrollment or lesson is 404', async () => {
      const c = await course(2);
      const other = await course(1);
      const e = await enroll(await student(), c.id);
      const res = await s.owner('PUT', completion(e, other.lessons[0]!));
      expectError(res, 404, 'not_found');
      expect(res.json.error_description).toContain(`is not a lesson of course ${c.id}`);
      expectError(await s.owner('PUT', completion('enr_missing', c.lessons[0]!)), 404, 'not_found');
      expectError(await s.owner('PUT', completion(e, 'les_missing')), 404, 'not_found');
      expectError(await s.owner('GET', '/enrollments/enr_missing/progress'), 404, 'not_found');
      expect((await s.owner('GET', `/enrollments/${e}/progress`)).json).toMatchObject({ completed_lessons: 0, progress_percent: 0 });
    });

    it('a deleted lesson stops counting and a new lesson lowers the live percent, never above 100', async () => {
      const c = await course(2);
      const e = await enroll(await student(), c.id);
      await s.owner('PUT', completion(e, c.lessons[0]!));
      await s.owner('PUT', completion(e, c.lessons[1]!));
      expect((await s.owner('DELETE', `/curriculum/lessons/${c.lessons[1]!}`)).status).toBe(204);
      const after = await s.owner('GET', `/enrollments/${e}/progress`);
      expect(after.json).toMatchObject({ progress_percent: 100, completed_lessons: 1, total_lessons: 1 });
      const section = (await s.owner('GET', `/curriculum/lessons/${c.lessons[0]!}`)).json.section_id;
      await s.owner('POST', '/curriculum/lessons', { section_id: section, title: 'New', position: 9 });
      expect((await s.owner('GET', `/enrollments/${e}/progress`)).json).toMatchObject({ progress_percent: 50, completed_at: null, total_lessons: 2 });
      // The next change recomputes the stored figures too.
      expect((await s.owner('DELETE', completion(e, c.lessons[1]!))).status).toBe(404);
      const redo = await s.owner('PUT', completion(e, c.lessons[0]!));
      expect(redo.json).toMatchObject({ changed: false, enrollment: { progress_percent: 50, completed_at: null } });
    });

    it('deleting an enrollment removes its completions', async () => {
      const c = await course(1);
      const e = await enroll(await student(), c.id);
      await s.owner('PUT', completion(e, c.lessons[0]!));
      expect(await s.server.deps.store.records.count('lesson_completions', [['enrollment_id', '=', e]])).toBe(1);
      expect((await s.owner('DELETE', `/enrollments/${e}`)).status).toBe(204);
      expect(await s.server.deps.store.records.count('lesson_completions', [['enrollment_id', '=', e]])).toBe(0);
    });

    it('parallel completions of every lesson of one enrollment end at 100 with each one counted', async () => {
      const c = await course(6);
      const e = await enroll(await student(), c.id);
      const results = await Promise.all(c.lessons.map((l) => s.owner('PUT', completion(e, l))));
      for (const r of results) expect(r.status, r.text).toBe(200);
      expect((await s.owner('GET', `/enrollments/${e}`)).json).toMatchObject({ progress_percent: 100, completed_at: expect.any(String) });
    });

    it('progress_percent and completed_at are read-only; access_expires_at is written and cleared by PATCH', async () => {
      const c = await course(1);
      const st = await student();
      expectError(await s.owner('POST', '/enrollments', { student_id: st, course_id: c.id, progress_percent: 40 }), 400, 'invalid_request');
      const e = await enroll(st, c.id, { access_expires_at: future(10) });
      expectError(await s.owner('PATCH', `/enrollments/${e}`, { completed_at: future(1) }), 400, 'invalid_request');
      expectError(await s.owner('PATCH', `/enrollments/${e}`, { progress_percent: 100 }), 400, 'invalid_request');
      // One instant for the request and the check: two calls may fall on either side of a second.
      const later = future(40);
      const extended = await s.owner('PATCH', `/enrollments/${e}`, { access_expires_at: later });
      expect(extended.json).toMatchObject({ access_expires_at: later, progress_percent: 0 });
      expect((await s.owner('PATCH', `/enrollments/${e}`, { access_expires_at: null })).json).toMatchObject({ access_expires_at: null });
    });
  });

  describe('the learner marks their own lessons', () => {
    async function learner() {
      const user = await s.server.addUser('student', `${marker()}@learners.test`);
      const studentId = await student(user.email);
      const token = await tokenSource(s.server, user)(LEARNER_SCOPES);
      const call = (method: string, path: string) => api(s.server.issuer, method, path, { token });
      return { user, studentId, call };
    }

    it('completes and undoes a lesson of an enrolled course and reads the progress of that enrollment', async () => {
      const me = await learner();
      const c = await course(2);
      const e = await enroll(me.studentId, c.id);
      const done = await me.call('PUT', `/account/lessons/${c.lessons[0]!}/completion`);
      expect(done.status, done.text).toBe(200);
      expect(done.json).toMatchObject({ completed: true, changed: true, enrollment: { id: e, progress_percent: 50 } });
      const report = await me.call('GET', `/account/enrollments/${e}/progress`);
      expect(report.status, report.text).toBe(200);
      expect(report.json).toMatchObject({ enrollment_id: e, progress_percent: 50, completed_lessons: 1 });
      expect(JSON.stringify(report.json)).not.toContain('content');
      const undone = await me.call('DELETE', `/account/lessons/${c.lessons[0]!}/completion`);
      expect(undone.json).toMatchObject({ completed: false, enrollment: { progress_percent: 0 } });
    });

    it("cannot complete a lesson of a course they are not enrolled in, nor read another student's progress", async () => {
      const me = await learner();
      const c = await course(1);
      const other = await enroll(await student(), c.id);
      const res = await me.call('PUT', `/account/lessons/${c.lessons[0]!}/completion`);
      expectError(res, 403, 'not_enrolled');
      expectError(await me.call('GET', `/account/enrollments/${other}/progress`), 404, 'not_found');
      expectError(await me.call('PUT', '/account/lessons/les_missing/completion'), 404, 'not_found');
      expect((await s.owner('GET', `/enrollments/${other}`)).json).toMatchObject({ progress_percent: 0 });
    });

    it('an account without a student record is 404', async () => {
      const user = await s.server.addUser('student', `${marker()}@nobody.test`);
      const token = await tokenSource(s.server, user)(LEARNER_SCOPES);
      const c = await course(1);
      expectError(await api(s.server.issuer, 'PUT', `/account/lessons/${c.lessons[0]!}/completion`, { token }), 404, 'not_found');
    });

    it('expired access refuses completion with 403 access_expired until the school extends it', async () => {
      const me = await learner();
      const c = await course(1);
      const e = await enroll(me.studentId, c.id, { access_expires_at: past(1) });
      const refused = await me.call('PUT', `/account/lessons/${c.lessons[0]!}/completion`);
      expectError(refused, 403, 'access_expired');
      expect((await me.call('GET', `/account/enrollments/${e}/progress`)).json).toMatchObject({ access_expired: true, progress_percent: 0 });
      expect((await s.owner('PATCH', `/enrollments/${e}`, { access_expires_at: future(30) })).status).toBe(200);
      const allowed = await me.call('PUT', `/account/lessons/${c.lessons[0]!}/completion`);
      expect(allowed.status, allowed.text).toBe(200);
      expect(allowed.json).toMatchObject({ enrollment: { progress_percent: 100 } });
    });

    it('a suspended student record or a draft course opens no lesson (403 lesson_not_open)', async () => {
      const me = await learner();
      const draft = await course(1, 'draft');
      await enroll(me.studentId, draft.id);
      expectError(await me.call('PUT', `/account/lessons/${draft.lessons[0]!}/completion`), 403, 'lesson_not_open');
      const open = await course(1);
      await enroll(me.studentId, open.id);
      await s.owner('PATCH', `/students/${me.studentId}`, { status: 'suspended' });
      expectError(await me.call('PUT', `/account/lessons/${open.lessons[0]!}/completion`), 403, 'lesson_not_open');
    });
  });
});
