import { z } from 'zod';
import { AccountService } from '../../platform/account.ts';
import { AREAS } from '../../platform/areas.ts';
import { EnrollByEmailService } from '../../platform/progress/enroll-by-email.ts';
import { PlatformError } from '../../platform/errors.ts';
import { listAll } from '../../platform/list-all.ts';
import { ProgressService, type CompletionResult, type ProgressReport } from '../../platform/progress/progress-service.ts';
import { defineTool, type ToolContext } from '../tool.ts';

/**
 * Enrolment and lesson progress, on the same services as the API routes
 * (POST /api/v1/enrollments/by-email, .../enrollments/{id}/lessons/{lesson_id}/completion,
 * .../account/lessons/{lesson_id}/completion), so the rules and the errors are theirs.
 */

const ID = (what: string) => z.string().min(1).max(100).describe(what);

/** The caller's user id; the bearer guard has already refused a call without a token. */
function userIdOf(ctx: ToolContext): string {
  if (ctx.caller.kind !== 'token') throw new PlatformError('invalid_request', 'This tool needs a Bearer access token', 401);
  return ctx.caller.userId;
}

const progress = (ctx: ToolContext) => new ProgressService(ctx.deps, ctx.records);

function completionText(r: CompletionResult): string {
  const state = r.completed ? `Lesson ${r.lesson_id} is completed` : `Lesson ${r.lesson_id} is not completed`;
  const course = r.enrollment.completed_at ? `, course completed ${String(r.enrollment.completed_at).slice(0, 10)}` : '';
  return `${state}${r.changed ? '' : ' (it already was)'}. Progress: ${r.completed_lessons} of ${r.total_lessons} lessons, ${String(r.enrollment.progress_percent)}%${course}.`;
}

export const enrollStudentByEmail = defineTool({
  name: 'enroll_student_by_email',
  toolset: 'students',
  title: 'Enroll a student by email',
  description:
    'Enrolls an email address in a course: the student with that email is created when there is none, and an existing enrollment is returned as it is. With dry_run, says what would be created and writes nothing.',
  scopes: ['students:write'],
  showsLearners: true,
  readOnly: false,
  // An upsert, and completions that a repeat leaves as they are.
  idempotent: true,
  input: {
    email: z.string().min(3).max(320).describe("The student's email address"),
    course_id: ID('The course id'),
    name: z.string().min(1).max(200).optional().describe("The new student's name (default: the part of the email before @)"),
    dry_run: z.boolean().default(false).describe('Only say what would happen'),
  },
  async run(ctx, args) {
    const service = new EnrollByEmailService(ctx.deps, ctx.records);
    const input = { email: args.email, course_id: args.course_id, ...(args.name ? { name: args.name } : {}) };
    if (args.dry_run) {
      const plan = await service.preview(input);
      const text = `Dry run: ${plan.would_create_student ? 'a new student would be created' : `student ${String(plan.student?.id)} exists`}; ${plan.would_create_enrollment ? 'an enrollment would be created' : `already enrolled (${String(plan.enrollment?.id)})`}. Nothing was written.`;
      return { structured: { dry_run: true, ...plan }, text };
    }
    const outcome = await service.enroll(input);
    const text = `${outcome.created_enrollment ? 'Enrolled' : 'Already enrolled:'} ${String(outcome.student.email)} in course ${args.course_id} (enrollment ${String(outcome.enrollment.id)}${outcome.created_student ? ', new student record' : ''}).`;
    return { structured: { dry_run: false, ...outcome }, text };
  },
});

const COURSE_PROGRESS_MAX = 50;

export const getCourseProgress = defineTool({
  name: 'get_course_progress',
  toolset: 'students',
  title: "A course's progress",
  description: `Every enrollment of a course with its student, percent, lessons done and the lessons still open, by name (up to ${COURSE_PROGRESS_MAX} enrollments a call, oldest first; next_cursor for more). student_id narrows to one student.`,
  scopes: ['students:read'],
  showsLearners: true,
  readOnly: true,
  input: {
    course_id: ID('The course id'),
    student_id: ID('Only this student').optional(),
    cursor: z.string().max(500).optional().describe('next_cursor of the previous answer'),
    limit: z.number().int().min(1).max(COURSE_PROGRESS_MAX).default(20).describe(`1-${COURSE_PROGRESS_MAX}`),
  },
  async run(ctx, args) {
    const course = await ctx.records.get(AREAS.courses, 'full', args.course_id);
    const page = await ctx.records.list(AREAS.enrollments, 'full', {
      limit: args.limit,
      filters: { course_id: args.course_id, ...(args.student_id ? { student_id: args.student_id } : {}) },
      ...(args.cursor ? { cursor: args.cursor } : {}),
    });
    const service = progress(ctx);
    const enrollments = [];
    const reports = await service.reports(page.data.map((e) => String(e.id)));
    for (const [i, enrollment] of page.data.entries()) {
      const report = reports[i]!;
      const student = await ctx.records.get(AREAS.students, 'full', String(enrollment.student_id)).catch(() => undefined);
      enrollments.push({
        enrollment_id: report.enrollment_id,
        student: student ? { id: student.id, name: student.name, email: student.email } : { id: enrollment.student_id },
        progress_percent: report.progress_percent,
        completed_lessons: report.completed_lessons,
        total_lessons: report.total_lessons,
        completed_at: report.completed_at,
        access_expired: report.access_expired,
        open_lessons: report.lessons.filter((l) => l.completed_at === null).map((l) => ({ id: l.id, title: l.title })),
      });
    }
    const lines = enrollments.map(
      (e) =>
        `- ${String(e.student.name ?? e.student.id)}: ${e.progress_percent}% (${e.completed_lessons}/${e.total_lessons})${e.open_lessons[0] ? `, next: ${String(e.open_lessons[0].title)}` : ', done'}`,
    );
    const text = enrollments.length
      ? [`${String(course.title)}: ${enrollments.length} enrollment${enrollments.length === 1 ? '' : 's'}${page.next_cursor ? ' (more with next_cursor)' : ''}`, ...lines].join('\n')
      : `${String(course.title)} has no enrollment${args.student_id ? ' for that student' : ''}.`;
    return { structured: { course_id: args.course_id, course_title: course.title, enrollments, ...(page.next_cursor ? { next_cursor: page.next_cursor } : {}) }, text };
  },
});

export const setLessonCompletion = defineTool({
  name: 'set_lesson_completion',
  toolset: 'students',
  title: "Mark a student's lesson done or not",
  description: "Marks a lesson of the enrollment's course completed for the student (or, with completed false, not completed) and answers the enrollment's new progress.",
  scopes: ['students:write'],
  readOnly: false,
  // An upsert, and completions that a repeat leaves as they are.
  idempotent: true,
  input: {
    enrollment_id: ID('The enrollment id'),
    lesson_id: ID("A lesson of the enrollment's course"),
    completed: z.boolean().default(true).describe('false undoes the completion'),
  },
  async run(ctx, args) {
    const service = progress(ctx);
    const result = args.completed ? await service.complete(args.enrollment_id, args.lesson_id) : await service.uncomplete(args.enrollment_id, args.lesson_id);
    return { structured: { ...result }, text: completionText(result) };
  },
});

export const setMyLessonCompletion = defineTool({
  name: 'set_my_lesson_completion',
  toolset: 'learner',
  title: 'Mark my lesson done or not',
  description:
    'Marks one of your lessons completed (a lesson of a course you are enrolled in, see get_my_progress), or with completed false not completed, and answers your new progress in that course.',
  scopes: ['account:write'],
  readOnly: false,
  // An upsert, and completions that a repeat leaves as they are.
  idempotent: true,
  input: { lesson_id: ID('The lesson id, from get_my_progress'), completed: z.boolean().default(true).describe('false: mark it not completed') },
  async run(ctx, args) {
    const result = await progress(ctx).setMine(userIdOf(ctx), args.lesson_id, args.completed);
    return { structured: { ...result }, text: completionText(result) };
  },
});

/** One course of get_my_progress: the enrollment's report, with the lessons left (or, with detail, every lesson). */
function courseProgress(report: ProgressReport, courseTitle: unknown, detail: boolean) {
  const lessons = (detail ? report.lessons : report.lessons.filter((l) => l.completed_at === null)).map(({ id, title, completed_at }) => ({ id, title, completed_at }));
  return {
    enrollment_id: report.enrollment_id,
    course_id: report.course_id,
    course_title: typeof courseTitle === 'string' ? courseTitle : null,
    progress_percent: report.progress_percent,
    completed_lessons: report.completed_lessons,
    total_lessons: report.total_lessons,
    completed_at: report.completed_at,
    access_expired: report.access_expired,
    lessons,
  };
}

function progressText(c: ReturnType<typeof courseProgress>, detail: boolean): string {
  const head = `${String(c.course_title ?? c.course_id)}: ${c.progress_percent}%, ${c.completed_lessons} of ${c.total_lessons} lessons done${c.access_expired ? '; your access has ended' : ''}`;
  if (!detail && c.lessons.length === 0) return `${head}; nothing left.`;
  const lines = c.lessons.map((l) => (detail ? `  - [${l.completed_at ? 'x' : ' '}] ${String(l.title)} (${l.id})` : `  - ${String(l.title)} (${l.id})`));
  return [`${head}; ${detail ? 'every lesson' : 'left'}:`, ...lines].join('\n');
}

export const getMyProgress = defineTool({
  name: 'get_my_progress',
  toolset: 'learner',
  title: 'My progress',
  description:
    'Your progress in the courses you are enrolled in, in one call: for each course the percent and the lessons you have left, in curriculum order (with detail true, every lesson and when you completed it). course_id narrows to one course. A course still in draft is left out, as it is from list_my_lessons. Mark a lesson done with set_my_lesson_completion.',
  scopes: ['account:read'],
  readOnly: true,
  input: {
    course_id: ID('Only this course (one you are enrolled in)').optional(),
    detail: z.boolean().default(false).describe('true: every lesson with when you completed it, not only those left'),
  },
  async run(ctx, args) {
    const userId = userIdOf(ctx);
    const student = await new AccountService(ctx.deps, ctx.records).studentOf(userId);
    if (!student) return { structured: { student_id: null, courses: [] }, text: 'Your account has no student record at this school, so there is no progress to show.' };
    const enrollments = (await listAll(ctx.records, AREAS.enrollments, 'full', { student_id: student.id })).filter((e) => args.course_id === undefined || e.course_id === args.course_id);
    const service = progress(ctx);
    const courses = [];
    for (const enrollment of enrollments) {
      const course = await ctx.deps.store.records.get(AREAS.courses.name, String(enrollment.course_id));
      if (!course || course.status === 'draft') continue;
      // The enrollment was listed by the caller's own student id: no second ownership check needed.
      courses.push(courseProgress(await service.report(String(enrollment.id)), course.title, args.detail));
    }
    const text = courses.length
      ? courses.map((c) => progressText(c, args.detail)).join('\n')
      : args.course_id === undefined
        ? 'You are not enrolled in any open course.'
        : `You are not enrolled in course ${args.course_id}, or it is not open yet.`;
    return { structured: { student_id: student.id, courses }, text };
  },
});
