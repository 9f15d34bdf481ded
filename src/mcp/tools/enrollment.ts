import { AccountService } from '../../platform/account.ts';
import { AREAS } from '../../platform/areas.ts';
import { EnrollByEmailService } from '../../platform/enroll-by-email.ts';
import { PlatformError } from '../../platform/errors.ts';
import { listAll } from '../../platform/list-all.ts';
import { ProgressService, type CompletionResult, type ProgressReport } from '../../platform/progress.ts';
import { defineTool, type ToolContext, type Zod } from '../tool.ts';

/**
 * Enrolment and lesson progress, on the same services as the API routes
 * (POST /api/v1/enrollments/by-email, .../enrollments/{id}/lessons/{lesson_id}/completion,
 * .../account/lessons/{lesson_id}/completion), so the rules and the errors are theirs.
 */

const ID = (z: Zod, what: string) => z.string().min(1).max(100).describe(what);

/** The caller's user id; the bearer guard has already refused a call without a token. */
function userIdOf(ctx: ToolContext): string {
  if (ctx.caller.kind !== 'token') throw new PlatformError('invalid_request', 'This tool needs a Bearer access token', 401);
  return ctx.caller.userId;
}

const progress = (ctx: ToolContext) => new ProgressService(ctx.deps, ctx.records);

/** What a completion or an undo answers (CompletionResult). */
const completionOutput = (z: Zod) => ({
  lesson_id: z.string(),
  completed: z.boolean(),
  completed_at: z.string().nullable(),
  changed: z.boolean(),
  completed_lessons: z.number().int(),
  total_lessons: z.number().int(),
  enrollment: z.looseObject({ id: z.string(), progress_percent: z.number().int(), completed_at: z.string().nullable() }),
});

function completionText(r: CompletionResult): string {
  const state = r.completed ? `Lesson ${r.lesson_id} is completed` : `Lesson ${r.lesson_id} is not completed`;
  const course = r.enrollment.completed_at ? `, course completed ${String(r.enrollment.completed_at).slice(0, 10)}` : '';
  return `${state}${r.changed ? '' : ' (it already was)'}. Progress: ${r.completed_lessons} of ${r.total_lessons} lessons, ${String(r.enrollment.progress_percent)}%${course}.`;
}

function reportText(r: ProgressReport): string {
  const head = `Enrollment ${r.enrollment_id}: ${r.completed_lessons} of ${r.total_lessons} lessons, ${r.progress_percent}%${r.completed_at ? `, completed ${r.completed_at.slice(0, 10)}` : ''}${r.access_expired ? '; access has ended' : r.access_expires_at ? `; access until ${r.access_expires_at.slice(0, 10)}` : ''}.`;
  return [head, ...r.lessons.map((l) => `- [${l.completed_at ? 'x' : ' '}] ${String(l.title)} (${l.id})`)].join('\n');
}

export const enrollStudentByEmail = defineTool({
  name: 'enroll_student_by_email',
  title: 'Enroll a student by email',
  description:
    'Enrolls an email address in a course: the student with that email is created when there is none, and an existing enrollment is returned as it is. With dry_run, says what would be created and writes nothing.',
  scopes: ['students:write'],
  readOnly: false,
  // An upsert, and completions that a repeat leaves as they are.
  idempotent: true,
  input: (z) => ({
    email: z.string().min(3).max(320).describe("The student's email address"),
    course_id: ID(z, 'The course id'),
    name: z.string().min(1).max(200).optional().describe("The new student's name (default: the part of the email before @)"),
    dry_run: z.boolean().default(false).describe('Only say what would happen'),
  }),
  output: (z) => ({
    dry_run: z.boolean(),
    created_student: z.boolean().optional(),
    created_enrollment: z.boolean().optional(),
    would_create_student: z.boolean().optional(),
    would_create_enrollment: z.boolean().optional(),
    student: z.looseObject({ id: z.string() }).nullable(),
    enrollment: z.looseObject({ id: z.string() }).nullable(),
  }),
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

export const getEnrollmentProgress = defineTool({
  name: 'get_enrollment_progress',
  title: "An enrollment's progress",
  description: "Any enrollment's progress lesson by lesson in curriculum order: which lessons are completed and when, the percent, and when access ends.",
  scopes: ['students:read'],
  readOnly: true,
  input: (z) => ({ enrollment_id: ID(z, 'The enrollment id') }),
  output: (z) => ({
    enrollment_id: z.string(),
    student_id: z.string(),
    course_id: z.string(),
    progress_percent: z.number().int(),
    completed_at: z.string().nullable(),
    access_expires_at: z.string().nullable(),
    access_expired: z.boolean(),
    completed_lessons: z.number().int(),
    total_lessons: z.number().int(),
    lessons: z.array(z.looseObject({ id: z.string(), completed_at: z.string().nullable() })),
  }),
  async run(ctx, args) {
    const report = await progress(ctx).report(args.enrollment_id);
    return { structured: { ...report }, text: reportText(report) };
  },
});

export const completeLessonForStudent = defineTool({
  name: 'complete_lesson_for_student',
  title: "Mark a student's lesson completed",
  description: "Marks a lesson of the enrollment's course completed for the student (or, with completed false, undoes it) and answers the enrollment's new progress.",
  scopes: ['students:write'],
  readOnly: false,
  // An upsert, and completions that a repeat leaves as they are.
  idempotent: true,
  input: (z) => ({
    enrollment_id: ID(z, 'The enrollment id'),
    lesson_id: ID(z, "A lesson of the enrollment's course"),
    completed: z.boolean().default(true).describe('false undoes the completion'),
  }),
  output: completionOutput,
  async run(ctx, args) {
    const service = progress(ctx);
    const result = args.completed ? await service.complete(args.enrollment_id, args.lesson_id) : await service.uncomplete(args.enrollment_id, args.lesson_id);
    return { structured: { ...result }, text: completionText(result) };
  },
});

const myLesson = (completed: boolean) =>
  defineTool({
    name: completed ? 'complete_my_lesson' : 'uncomplete_my_lesson',
    title: completed ? 'Mark my lesson completed' : "Undo my lesson's completion",
    description: completed
      ? 'Marks one of your lessons completed (a lesson of a course you are enrolled in, see list_my_lessons) and answers your new progress in that course.'
      : 'Undoes the completion of one of your lessons and answers your new progress in that course.',
    scopes: ['account:write'],
    readOnly: false,
    // An upsert, and completions that a repeat leaves as they are.
    idempotent: true,
    input: (z) => ({ lesson_id: ID(z, 'The lesson id, from list_my_lessons') }),
    output: completionOutput,
    async run(ctx, args) {
      const result = await progress(ctx).setMine(userIdOf(ctx), args.lesson_id, completed);
      return { structured: { ...result }, text: completionText(result) };
    },
  });

export const completeMyLesson = myLesson(true);
export const uncompleteMyLesson = myLesson(false);

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
  title: 'My progress',
  description:
    "Your progress in the courses you are enrolled in, in one call: for each course the percent and the lessons you have left, in curriculum order (with detail true, every lesson and when you completed it). course_id narrows to one course. A course still in draft is left out, as it is from list_my_lessons. Mark a lesson done with complete_my_lesson.",
  scopes: ['account:read'],
  readOnly: true,
  input: (z) => ({
    course_id: ID(z, 'Only this course (one you are enrolled in)').optional(),
    detail: z.boolean().default(false).describe('true: every lesson with when you completed it, not only those left'),
  }),
  output: (z) => ({
    student_id: z.string().nullable(),
    courses: z.array(
      z.looseObject({
        enrollment_id: z.string(),
        course_id: z.string(),
        course_title: z.string().nullable(),
        progress_percent: z.number().int(),
        completed_lessons: z.number().int(),
        total_lessons: z.number().int(),
        lessons: z.array(z.looseObject({ id: z.string(), completed_at: z.string().nullable() })).describe('The lessons left, or with detail every lesson'),
      }),
    ),
  }),
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
