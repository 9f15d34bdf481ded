import { z } from 'zod';
import { completable, ProtocolError, type McpServer } from '@modelcontextprotocol/server';
import { AREAS } from '../platform/areas.ts';
import { isoWeekDays, recentIsoWeeks } from './iso-week.ts';
import { INVALID_PARAMS } from './json-rpc-error.ts';
import { publishedCourseIds, RESOURCE_URIS } from './resources.ts';
import type { ToolContext } from './tool.ts';

/** How many weeks back the completion of weekly_report's `week` offers. */
export const WEEKS_OFFERED = 8;

const LEVELS = AREAS.courses.fields.level.enum;
const LESSON_KINDS = AREAS.lessons.fields.kind.enum;

const userText = (text: string) => ({ messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }] });

const startingWith = (values: readonly string[], prefix: string) => values.filter((v) => v.startsWith(prefix));

/**
 * Prompts for common school work. Each one names the tools and resources the
 * agent should use; none reads data itself, so a prompt never shows more
 * than its arguments. Their arguments are completed where a value can be
 * suggested: recent weeks, levels, published course ids.
 */
export function registerPrompts(server: McpServer, ctx: Pick<ToolContext, 'deps' | 'records'>): void {
  server.registerPrompt(
    'weekly_report',
    {
      title: 'Weekly report',
      description: 'A report on one week of the school: enrollments, revenue, active students, orders and what comes next. Needs a token with analytics:read and orders:read.',
      argsSchema: {
        week: completable(
          z
            .string()
            .regex(/^\d{4}-W\d{2}$/)
            .describe('ISO 8601 week, e.g. 2026-W48'),
          (value) => startingWith(recentIsoWeeks(ctx.deps.now(), WEEKS_OFFERED), value),
        ),
      },
    },
    ({ week }) => {
      const days = isoWeekDays(week);
      // MCP prompts, "Error Handling": "Invalid prompt name: -32602 (Invalid params); Missing required arguments: -32602".
      if (!days) throw new ProtocolError(INVALID_PARAMS, `${week} is not a week of its year`);
      return userText(
        [
          `Write the school's weekly report for ${week} (Monday ${days.from} to Sunday ${days.to}).`,
          `1. Call get_analytics with from "${days.from}", to "${days.to}" and interval "week": enrollments, revenue and active students.`,
          `2. Call get_analytics again with the week before as from and to, to compare.`,
          `3. Call list_orders (status "paid", then "refunded") and keep the orders paid between ${days.from} and ${days.to}.`,
          '4. Call list_events for the events coming up next.',
          'Report in Markdown: a two-sentence summary, a table of the numbers against the week before, notable orders, upcoming events, and up to three suggested actions. Use only numbers the tools returned.',
          'get_analytics and list_orders need a signed-in token (analytics:read, orders:read): a 401 or 403 means sign in or ask for those scopes.',
        ].join('\n'),
      );
    },
  );

  server.registerPrompt(
    'course_outline_from_syllabus',
    {
      title: 'Course outline from a syllabus',
      description: "Turns a syllabus into a course outline in Lyceum's shape: a course with sections and lessons, checked against the published catalog.",
      argsSchema: {
        syllabus: z.string().min(1).max(20_000).describe('The syllabus, as plain text or Markdown'),
        // Optional outside the completable: the SDK finds a completer under .optional(), not inside it.
        level: completable(z.string().describe(`Level of the course: ${LEVELS.join(', ')}`), (value) => startingWith(LEVELS, value ?? '')).optional(),
      },
    },
    ({ syllabus, level }) =>
      userText(
        [
          `Draft a course outline from the syllabus below${level ? ` for the ${level} level` : ''}.`,
          `1. Read the resources ${RESOURCE_URIS.schema('courses')}, ${RESOURCE_URIS.schema('sections')} and ${RESOURCE_URIS.schema('lessons')} for the fields a course, a section and a lesson have.`,
          '2. Call list_records (area courses, q) with the main subject of the syllabus: say whether a published course already covers it, and call get_course on the closest one to match its style.',
          `3. Write the outline: title, summary (at most 500 characters), level (${LEVELS.join(', ')}), then sections in order, each with lessons in order, every lesson with a title, a kind (${LESSON_KINDS.join(', ')}) and duration_minutes.`,
          "4. To change an existing course's title, summary, description or level, call update_course with dry_run true first and show the preview (it needs courses:write).",
          '',
          'Syllabus:',
          syllabus,
        ].join('\n'),
      ),
  );

  server.registerPrompt(
    'explain_course',
    {
      title: 'Explain a course',
      description: 'Explains a published course to a prospective student: who it is for, what each section teaches, the time it takes and the price.',
      argsSchema: {
        course_id: completable(z.string().min(1).max(100).describe('Id of a published course'), (value) => publishedCourseIds(ctx, value)),
      },
    },
    ({ course_id }) =>
      userText(
        [
          `Explain the course ${course_id} to someone thinking of taking it.`,
          `Read the resource ${RESOURCE_URIS.course(course_id)} (or call get_course with id "${course_id}"): its description, lecturers and curriculum outline.`,
          "Say who it is for (its level and language), what each section teaches, the total time (the sum of the lessons' duration_minutes), which lessons are free previews, and its price. Use only what the course says.",
        ].join('\n'),
      ),
  );
}
