import { z } from 'zod';
import { AccountService, type StudentRow } from '../../platform/account.ts';
import { AREAS, type AreaDef } from '../../platform/areas.ts';
import { CurriculumService } from '../../platform/curriculum.ts';
import { PlatformError } from '../../platform/errors.ts';
import { listAll } from '../../platform/list-all.ts';
import { bulletList, formatMoney } from '../format.ts';
import { defineTool, type ToolContext, type ToolResult } from '../tool.ts';

/**
 * The signed-in person's own account and student record, whatever their role.
 * Everything here is read through AccountService and RecordService, and every
 * list is filtered by the caller's own student id on the server: no input of
 * these tools names a person, so none can reach another person's records.
 */

const page = (fallback: number) => ({
  limit: z.number().int().min(1).max(50).default(fallback).describe('How many results (1-50)'),
  cursor: z.string().max(500).optional().describe('next_cursor from a previous call, to get the next page'),
});

const NO_STUDENT = 'Your account has no student record at this school (none is linked to it or has its email), so there is nothing to list.';

/** The caller's user id; the bearer guard has already refused a call without a token. */
function userIdOf(ctx: ToolContext): string {
  if (ctx.caller.kind !== 'token') throw new PlatformError('invalid_request', 'This tool needs a Bearer access token', 401);
  return ctx.caller.userId;
}

const account = (ctx: ToolContext) => new AccountService(ctx.deps, ctx.records);

async function myStudent(ctx: ToolContext): Promise<StudentRow | null> {
  return account(ctx).studentOf(userIdOf(ctx));
}

/** One page of an area's records of the caller's own student record, as GET /api/v1 lists them. */
async function myPage(ctx: ToolContext, area: AreaDef, studentId: string, args: { limit: number; cursor?: string | undefined }) {
  return ctx.records.list(area, 'full', { limit: args.limit, filters: { student_id: studentId }, ...(args.cursor ? { cursor: args.cursor } : {}) });
}

/** A record's title or name by id, read once per call; null when it is gone. */
function titles(ctx: ToolContext, area: AreaDef, column: 'title' | 'name') {
  const seen = new Map<string, Promise<string | null>>();
  return (id: unknown): Promise<string | null> => {
    const key = String(id);
    let found = seen.get(key);
    if (!found) {
      found = ctx.deps.store.records.get(area.name, key).then((row) => (row && typeof row[column] === 'string' ? row[column] : null));
      seen.set(key, found);
    }
    return found;
  };
}

function empty(key: string): ToolResult {
  return { structured: { student_id: null, [key]: [] }, text: NO_STUDENT };
}

export const getMyAccount = defineTool({
  name: 'get_my_account',
  toolset: 'learner',
  title: 'My account',
  description:
    'Your own account: name, email, role, and a summary of your student record at this school (its status and how many enrollments, subscriptions and orders it has; null when you have none). Use list_my_enrollments, list_my_orders, list_my_subscriptions and list_my_lessons for the details.',
  scopes: ['account:read'],
  readOnly: true,
  input: {},
  async run(ctx) {
    const me = await account(ctx).summary(userIdOf(ctx));
    const s = me.student;
    const record = s ? `Student record ${s.id} (${String(s.status)}): ${s.enrollments} enrollments, ${s.subscriptions} subscriptions, ${s.orders} orders.` : 'No student record at this school.';
    return { structured: me, text: `${me.name} <${me.email}>, ${me.role}.\n${record}` };
  },
});

export const listMyEnrollments = defineTool({
  name: 'list_my_enrollments',
  toolset: 'learner',
  title: 'My enrollments',
  description:
    'The courses you are enrolled in, oldest enrollment first, each with the course title, your progress (progress_percent 0-100 from the lessons you completed, completed_at once every lesson is) and when your access ends (access_expires_at, null: never).',
  scopes: ['account:read'],
  readOnly: true,
  input: page(10),
  async run(ctx, args) {
    const student = await myStudent(ctx);
    if (!student) return empty('enrollments');
    const result = await myPage(ctx, AREAS.enrollments, student.id, args);
    const courseTitle = titles(ctx, AREAS.courses, 'title');
    const enrollments = await Promise.all(result.data.map(async (e) => ({ ...e, course_title: await courseTitle(e.course_id) })));
    return {
      structured: { student_id: student.id, enrollments, ...(result.next_cursor ? { next_cursor: result.next_cursor } : {}) },
      text: bulletList(
        enrollments,
        (e) =>
          `${e.course_title ?? e.course_id}: ${e.progress_percent}%${e.completed_at ? `, completed ${String(e.completed_at).slice(0, 10)}` : ''}${e.access_expires_at ? `, access until ${String(e.access_expires_at).slice(0, 10)}` : ''} (enrollment ${e.id}, course ${e.course_id})`,
        result.next_cursor,
      ),
    };
  },
});

export const listMyOrders = defineTool({
  name: 'list_my_orders',
  toolset: 'learner',
  title: 'My orders',
  description: 'Your own orders, oldest first: what was bought, the total, the coupon used and the status.',
  scopes: ['account:read'],
  readOnly: true,
  input: page(10),
  async run(ctx, args) {
    const student = await myStudent(ctx);
    if (!student) return empty('orders');
    const result = await myPage(ctx, AREAS.orders, student.id, args);
    return {
      structured: { student_id: student.id, orders: result.data, ...(result.next_cursor ? { next_cursor: result.next_cursor } : {}) },
      text: bulletList(
        result.data,
        (o) => `${o.id}: ${formatMoney(o.total_cents, String(o.currency ?? 'USD'))} ${o.status}${o.paid_at ? ` on ${String(o.paid_at).slice(0, 10)}` : ''}`,
        result.next_cursor,
      ),
    };
  },
});

export const listMySubscriptions = defineTool({
  name: 'list_my_subscriptions',
  toolset: 'learner',
  title: 'My subscriptions',
  description: 'Your own membership subscriptions, oldest first, each with the plan name, its status and the end of the paid period.',
  scopes: ['account:read'],
  readOnly: true,
  input: page(10),
  async run(ctx, args) {
    const student = await myStudent(ctx);
    if (!student) return empty('subscriptions');
    const result = await myPage(ctx, AREAS.subscriptions, student.id, args);
    const planName = titles(ctx, AREAS.membership_plans, 'name');
    const subscriptions = await Promise.all(result.data.map(async (s) => ({ ...s, plan_name: await planName(s.plan_id) })));
    return {
      structured: { student_id: student.id, subscriptions, ...(result.next_cursor ? { next_cursor: result.next_cursor } : {}) },
      text: bulletList(
        subscriptions,
        (s) => `${s.plan_name ?? s.plan_id}: ${s.status}${s.current_period_end ? ` until ${String(s.current_period_end).slice(0, 10)}` : ''} (id ${s.id})`,
        result.next_cursor,
      ),
    };
  },
});

interface LessonLine {
  id: unknown;
  title: unknown;
  kind: unknown;
  duration_minutes: unknown;
  free_preview: unknown;
  course_id: string;
  course_title: unknown;
  section_id: unknown;
  section_title: unknown;
}

/** Where the next page of list_my_lessons starts: a course of the caller's and how many of its lessons came before. */
function encodeLessonCursor(courseId: string, offset: number): string {
  return Buffer.from(JSON.stringify([courseId, offset])).toString('base64url');
}

function decodeLessonCursor(cursor: string): [string, number] {
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    /* v stays undefined: the error below */
  }
  if (!Array.isArray(v) || v.length !== 2 || typeof v[0] !== 'string' || !Number.isInteger(v[1]) || (v[1] as number) < 0) {
    throw new PlatformError('invalid_request', 'cursor is not one this tool returned');
  }
  return v as [string, number];
}

export const listMyLessons = defineTool({
  name: 'list_my_lessons',
  toolset: 'learner',
  title: 'My lessons',
  description:
    'The lessons you may open: those of the courses you are enrolled in, course by course in enrollment order, sections and lessons in curriculum order, each with its section and title. A course still in draft is not open yet, a course whose access has ended is closed, and a suspended student record opens none. Titles and outline only; the lesson content itself is not part of this list.',
  scopes: ['account:read'],
  readOnly: true,
  input: {
    course_id: z.string().min(1).max(100).optional().describe('Only the lessons of this course (one you are enrolled in)'),
    ...page(20),
  },
  async run(ctx, args) {
    const student = await myStudent(ctx);
    if (!student) return empty('lessons');
    if (student.status !== 'active') return { structured: { student_id: student.id, lessons: [] }, text: 'Your student record is suspended, so no lesson is open to you.' };
    // An enrollment whose access has ended (access_expires_at passed) opens no lesson.
    const now = ctx.deps.now();
    const enrolled = (await listAll(ctx.records, AREAS.enrollments, 'full', { student_id: student.id }))
      .filter((e) => e.access_expires_at === null || Date.parse(String(e.access_expires_at)) > now)
      .map((e) => String(e.course_id));
    let courses = args.course_id === undefined ? enrolled : enrolled.filter((id) => id === args.course_id);
    let offset = 0;
    if (args.cursor) {
      const [courseId, skip] = decodeLessonCursor(args.cursor);
      const at = courses.indexOf(courseId);
      if (at < 0) throw new PlatformError('invalid_request', 'cursor is not one this tool returned');
      courses = courses.slice(at);
      offset = skip;
    }
    const curriculum = new CurriculumService(ctx.deps, ctx.records);
    const lessons: LessonLine[] = [];
    let nextCursor: string | undefined;
    for (const courseId of courses) {
      const course = await ctx.deps.store.records.get(AREAS.courses.name, courseId);
      if (!course || course.status === 'draft') {
        offset = 0;
        continue;
      }
      // The full view reads every section and lesson of a course the caller is enrolled in;
      // only the outline's fields below are passed on, never a lesson's content.
      const outline = await curriculum.outline(courseId, 'full');
      const all = outline.sections.flatMap((s) =>
        s.lessons.map((l) => ({
          id: l.id,
          title: l.title,
          kind: l.kind,
          duration_minutes: l.duration_minutes,
          free_preview: l.free_preview,
          course_id: courseId,
          course_title: course.title,
          section_id: s.id,
          section_title: s.title,
        })),
      );
      const room = args.limit - lessons.length;
      lessons.push(...all.slice(offset, offset + room));
      if (offset + room < all.length) {
        nextCursor = encodeLessonCursor(courseId, offset + room);
        break;
      }
      offset = 0;
      if (lessons.length === args.limit) {
        // A full page that ends with a course: the next one starts at the following course, if any.
        const next = courses[courses.indexOf(courseId) + 1];
        if (next !== undefined) nextCursor = encodeLessonCursor(next, 0);
        break;
      }
    }
    const text =
      args.course_id !== undefined && courses.length === 0
        ? `You are not enrolled in course ${args.course_id}.`
        : bulletList(
            lessons as unknown as Record<string, unknown>[],
            (l) => `${String(l.course_title)} › ${String(l.section_title)} › ${String(l.title)} (${String(l.kind)}, ${String(l.duration_minutes)} min) id ${String(l.id)}`,
            nextCursor,
          );
    return { structured: { student_id: student.id, lessons, ...(nextCursor ? { next_cursor: nextCursor } : {}) }, text };
  },
});

export const updateMyAccount = defineTool({
  name: 'update_my_account',
  toolset: 'learner',
  title: 'Change my name',
  description:
    'Changes your display name; nothing else. A password change is not offered here: it needs your current password, which is typed in the browser or sent by your own app to PATCH /api/v1/account, never handed to an agent.',
  scopes: ['account:write'],
  readOnly: false,
  idempotent: true,
  input: { name: z.string().min(1).max(200).describe('Your new display name') },
  async run(ctx, args) {
    const service = account(ctx);
    const userId = userIdOf(ctx);
    await service.rename(userId, args.name);
    const me = await service.summary(userId);
    return { structured: me, text: `Your name is now ${me.name}.` };
  },
});
