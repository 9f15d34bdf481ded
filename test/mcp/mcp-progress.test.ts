/**
 * The enrolment and progress tools through the MCP SDK's client over real
 * HTTP on each store: enroll_student_by_email (and its dry run),
 * get_course_progress, set_lesson_completion, and the learner's
 * set_my_lesson_completion and get_my_progress, with the scopes they need.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseChallenge } from '../helpers/bearer.ts';
import { mcpPost, summaryOf, toolCall } from '../helpers/mcp.ts';
import { marker, past, startRecordsServer, tokenSource, type RecordsServer } from '../helpers/records.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

type CallResult = { content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

describe.each(STORE_KINDS)('MCP enrolment and progress tools (%s)', (kind) => {
  let s: RecordsServer;
  const clients: Client[] = [];

  async function connect(token: string): Promise<Client> {
    const transport = new StreamableHTTPClientTransport(new URL(`${s.server.issuer}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
    const client = new Client({ name: 'lyceum-progress-test', version: '1.0.0' });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  const call = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallResult;
  const ok = async (client: Client, name: string, args: Record<string, unknown>) => {
    const result = await call(client, name, args);
    expect(result.isError ?? false, `${name}: ${JSON.stringify(result.content)}`).toBe(false);
    return result;
  };

  async function course(lessonCount: number) {
    const id = String((await s.owner('POST', '/courses', { title: `MCP ${marker()}`, status: 'published' })).json.id);
    const section = String((await s.owner('POST', '/curriculum/sections', { course_id: id, title: 'S' })).json.id);
    const lessons: string[] = [];
    for (let i = 0; i < lessonCount; i++) lessons.push(String((await s.owner('POST', '/curriculum/lessons', { section_id: section, title: `Lesson ${i}`, position: i })).json.id));
    return { id, lessons };
  }

  beforeAll(async () => {
    s = await startRecordsServer(kind);
  });

  afterAll(async () => {
    for (const c of clients) await c.close();
    await s?.server.close();
  });

  it('enroll_student_by_email: a dry run writes nothing, then the call enrolls, then answers the existing enrollment', async () => {
    const staff = await connect(await s.token('students:read students:write'));
    const c = await course(2);
    const email = `mcp.${marker()}@learners.test`;
    const dry = await ok(staff, 'enroll_student_by_email', { email, course_id: c.id, dry_run: true });
    expect(dry.structuredContent).toEqual({ dry_run: true, would_create_student: true, would_create_enrollment: true, student: null, enrollment: null });
    expect(summaryOf(dry)).toContain('Nothing was written');
    expect(await s.server.deps.store.records.count('students', [['email', '=', email]])).toBe(0);

    const made = await ok(staff, 'enroll_student_by_email', { email, course_id: c.id, name: 'Mia Mcp' });
    expect(made.structuredContent).toMatchObject({ dry_run: false, created_student: true, created_enrollment: true, student: { name: 'Mia Mcp' } });
    const again = await ok(staff, 'enroll_student_by_email', { email, course_id: c.id });
    expect(again.structuredContent).toMatchObject({ created_student: false, created_enrollment: false, enrollment: { id: (made.structuredContent!.enrollment as { id: string }).id } });

    const bad = await call(staff, 'enroll_student_by_email', { email: 'no-at-sign', course_id: c.id });
    expect(bad).toMatchObject({ isError: true, content: [{ type: 'text', text: 'email is not an email address' }] });
  });

  it("set_lesson_completion and get_course_progress show the same progress as the API, with the student's name", async () => {
    const staff = await connect(await s.token('students:read students:write'));
    const c = await course(3);
    const enrolled = await ok(staff, 'enroll_student_by_email', { email: `p.${marker()}@learners.test`, course_id: c.id });
    const enrollmentId = (enrolled.structuredContent!.enrollment as { id: string }).id;
    const done = await ok(staff, 'set_lesson_completion', { enrollment_id: enrollmentId, lesson_id: c.lessons[1] });
    expect(done.structuredContent).toMatchObject({ completed: true, changed: true, completed_lessons: 1, total_lessons: 3, enrollment: { progress_percent: 33 } });
    expect(summaryOf(done)).toBe(`Lesson ${c.lessons[1]} is completed. Progress: 1 of 3 lessons, 33%.`);
    const report = await ok(staff, 'get_course_progress', { course_id: c.id });
    const rest = (await s.owner('GET', `/enrollments/${enrollmentId}/progress`)).json as {
      progress_percent: number;
      completed_lessons: number;
      lessons: { id: string; title: string; completed_at: string | null }[];
    };
    const student = enrolled.structuredContent!.student as { id: string; name: string; email: string };
    expect(report.structuredContent).toEqual({
      course_id: c.id,
      course_title: expect.stringMatching(/^MCP /),
      enrollments: [
        {
          enrollment_id: enrollmentId,
          student: { id: student.id, name: student.name, email: student.email },
          progress_percent: rest.progress_percent,
          completed_lessons: rest.completed_lessons,
          total_lessons: 3,
          completed_at: null,
          access_expired: false,
          open_lessons: rest.lessons.filter((l) => !l.completed_at).map(({ id, title }) => ({ id, title })),
        },
      ],
    });
    expect(summaryOf(report)).toMatch(new RegExp(`: 1 enrollment\n- ${student.name}: 33% \\(1/3\\), next: Lesson 0$`));
    const undone = await ok(staff, 'set_lesson_completion', { enrollment_id: enrollmentId, lesson_id: c.lessons[1], completed: false });
    expect(undone.structuredContent).toMatchObject({ completed: false, enrollment: { progress_percent: 0 } });
  });

  it('the learner completes and undoes their own lessons; not another course, not after access ends', async () => {
    const user = await s.server.addUser('student', `${marker()}@learners.test`);
    const c = await course(2);
    const other = await course(1);
    const expired = await course(1);
    const student = String((await s.owner('POST', '/students', { name: 'Lee', email: user.email })).json.id);
    await s.owner('POST', '/enrollments', { student_id: student, course_id: c.id });
    await s.owner('POST', '/enrollments', { student_id: student, course_id: expired.id, access_expires_at: past(1) });
    const learner = await connect(await tokenSource(s.server, user)('account:read account:write'));

    const done = await ok(learner, 'set_my_lesson_completion', { lesson_id: c.lessons[0] });
    expect(done.structuredContent).toMatchObject({ completed: true, enrollment: { progress_percent: 50 } });
    const mine = await ok(learner, 'list_my_enrollments', {});
    expect(summaryOf(mine)).toContain('50%');
    expect(summaryOf(mine)).toContain(`access until ${past(1).slice(0, 10)}`);
    // The course whose access has ended opens no lesson.
    const lessons = await ok(learner, 'list_my_lessons', {});
    expect((lessons.structuredContent!.lessons as { id: string }[]).map((l) => l.id)).toEqual(c.lessons);

    const undone = await ok(learner, 'set_my_lesson_completion', { lesson_id: c.lessons[0], completed: false });
    expect(undone.structuredContent).toMatchObject({ completed: false, enrollment: { progress_percent: 0 } });
    expect(await call(learner, 'set_my_lesson_completion', { lesson_id: other.lessons[0] })).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: `You are not enrolled in the course of lesson ${other.lessons[0]}` }],
    });
    const refused = await call(learner, 'set_my_lesson_completion', { lesson_id: expired.lessons[0] });
    expect(refused.isError).toBe(true);
    expect(refused.content[0]?.text).toMatch(/^Your access to this course ended at /);
  });

  it('get_my_progress answers a learner\'s "which lessons do I have left?" in one call, and no one else\'s', async () => {
    const user = await s.server.addUser('student', `${marker()}@learners.test`);
    const c = await course(3);
    const other = await course(1);
    const draft = String((await s.owner('POST', '/courses', { title: `Draft ${marker()}`, status: 'draft' })).json.id);
    const student = String((await s.owner('POST', '/students', { name: 'Kim', email: user.email })).json.id);
    const enrollment = String((await s.owner('POST', '/enrollments', { student_id: student, course_id: c.id })).json.id);
    await s.owner('POST', '/enrollments', { student_id: student, course_id: draft });
    // Someone else's progress in another course is not theirs.
    const stranger = String((await s.owner('POST', '/students', { name: 'Stranger', email: `${marker()}@learners.test` })).json.id);
    await s.owner('POST', '/enrollments', { student_id: stranger, course_id: other.id });
    const learner = await connect(await tokenSource(s.server, user)('account:read account:write'));
    await ok(learner, 'set_my_lesson_completion', { lesson_id: c.lessons[1] });

    const left = await ok(learner, 'get_my_progress', {});
    expect(left.structuredContent).toEqual({
      student_id: student,
      courses: [
        {
          enrollment_id: enrollment,
          course_id: c.id,
          course_title: expect.stringMatching(/^MCP /),
          progress_percent: 33,
          completed_lessons: 1,
          total_lessons: 3,
          completed_at: null,
          access_expired: false,
          lessons: [
            { id: c.lessons[0], title: 'Lesson 0', completed_at: null },
            { id: c.lessons[2], title: 'Lesson 2', completed_at: null },
          ],
        },
      ],
    });
    // The text carries what the structured answer does.
    expect(summaryOf(left)).toBe(
      `${String((left.structuredContent!.courses as { course_title: string }[])[0]!.course_title)}: 33%, 1 of 3 lessons done; left:\n  - Lesson 0 (${c.lessons[0]})\n  - Lesson 2 (${c.lessons[2]})`,
    );

    const every = await ok(learner, 'get_my_progress', { course_id: c.id, detail: true });
    const lessons = (every.structuredContent!.courses as { lessons: { id: string; completed_at: string | null }[] }[])[0]!.lessons;
    expect(lessons.map((l) => [l.id, l.completed_at !== null])).toEqual([
      [c.lessons[0], false],
      [c.lessons[1], true],
      [c.lessons[2], false],
    ]);
    expect(summaryOf(every)).toContain(`  - [x] Lesson 1 (${c.lessons[1]})`);

    expect((await ok(learner, 'get_my_progress', { course_id: other.id })).structuredContent).toEqual({ student_id: student, courses: [] });
    expect(summaryOf(await ok(learner, 'get_my_progress', { course_id: other.id }))).toBe(`You are not enrolled in course ${other.id}, or it is not open yet.`);
  });

  it('each tool needs its scope: HTTP 403 insufficient_scope naming it', async () => {
    const learnerToken = await s.token('account:read account:write');
    const staffReadToken = await s.token('students:read account:read');
    const cases: [string, Record<string, unknown>, string, string][] = [
      ['enroll_student_by_email', { email: 'a@b.test', course_id: 'crs_x' }, learnerToken, 'students:write'],
      ['set_lesson_completion', { enrollment_id: 'enr_x', lesson_id: 'les_x' }, staffReadToken, 'students:write'],
      ['get_course_progress', { course_id: 'crs_x' }, learnerToken, 'students:read'],
      ['set_my_lesson_completion', { lesson_id: 'les_x' }, staffReadToken, 'account:write'],
      ['get_my_progress', {}, await s.token('students:read'), 'account:read'],
    ];
    for (const [name, args, token, scope] of cases) {
      const res = await mcpPost(s.server.issuer, toolCall(name, args), { authorization: `Bearer ${token}` });
      expect({ status: res.status, body: res.json }, name).toEqual({ status: 403, body: { error: 'insufficient_scope', error_description: expect.stringMatching(/\S/) } });
      expect(parseChallenge(res.headers.get('www-authenticate')).params).toMatchObject({ error: 'insufficient_scope', scope });
      const anonymous = await mcpPost(s.server.issuer, toolCall(name, args));
      expect(anonymous.status, name).toBe(401);
    }
  });
});
