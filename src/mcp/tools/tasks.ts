import { z } from 'zod';
import { AREAS } from '../../platform/areas.ts';
import { CurriculumService } from '../../platform/curriculum.ts';
import { PlatformError } from '../../platform/errors.ts';
import { SchoolSummaryService } from '../../platform/school-summary.ts';
import { formatMoney } from '../format.ts';
import { defineTool } from '../tool.ts';

/** Tasks an agent asks for in one call, beyond reading and writing one record. */

export const publishCourse = defineTool({
  name: 'publish_course',
  toolset: 'courses',
  title: 'Publish a course',
  description:
    'Publishes a course once its curriculum is ready: it needs at least one section with at least one lesson, and is refused with what is missing otherwise. With dry_run true the course is checked the same way and shown as it would be, not changed.',
  scopes: ['courses:write'],
  readOnly: false,
  idempotent: true,
  input: {
    id: z.string().min(1).max(100).describe('The course id'),
    dry_run: z.boolean().default(false).describe('true: check and show the result, changing nothing'),
  },
  async run(ctx, args) {
    const outline = await new CurriculumService(ctx.deps, ctx.records).outline(args.id, 'full');
    const title = String(outline.course.title);
    const lessons = outline.sections.reduce((n, s) => n + s.lessons.length, 0);
    if (outline.sections.length === 0) {
      throw new PlatformError('invalid_request', `"${title}" has no curriculum yet: add a section with at least one lesson (create_record with area sections, then lessons) before publishing it`);
    }
    if (lessons === 0) {
      const names = outline.sections.map((s) => `"${String(s.title)}"`).join(', ');
      throw new PlatformError('invalid_request', `"${title}" has no lesson yet: its sections (${names}) are empty; add at least one lesson (create_record with area lessons) before publishing it`);
    }
    const course = await ctx.records.update(AREAS.courses, args.id, { status: 'published' }, { dryRun: args.dry_run });
    return {
      structured: { dry_run: args.dry_run, course, sections: outline.sections.length, lessons },
      text: `${args.dry_run ? 'Would publish' : 'Published'} "${title}" (id ${args.id}): ${outline.sections.length} sections, ${lessons} lessons.`,
    };
  },
});

export const getSchoolSummary = defineTool({
  name: 'get_school_summary',
  toolset: 'analytics',
  title: 'School summary',
  description: 'The school at a glance: courses by status, students, enrollments, orders paid this month (UTC) and their revenue, and published events still to come.',
  scopes: ['courses:read', 'students:read', 'orders:read', 'events:read'],
  readOnly: true,
  input: {},
  async run(ctx) {
    const s = await new SchoolSummaryService(ctx.deps).summary();
    const byStatus = Object.entries(s.courses)
      .map(([status, n]) => `${n} ${status}`)
      .join(', ');
    return {
      structured: s,
      text: `Courses: ${byStatus}. ${s.students} students, ${s.enrollments} enrollments. ${s.month}: ${s.orders_paid_this_month} orders paid, ${formatMoney(s.revenue_this_month_cents, s.currency)}. ${s.upcoming_events} upcoming events.`,
    };
  },
});
