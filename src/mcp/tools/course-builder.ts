import { z } from 'zod';
import { AREAS } from '../../platform/areas.ts';
import { CurriculumService } from '../../platform/curriculum.ts';
import { PlatformError } from '../../platform/errors.ts';
import { checkValues } from './records.ts';
import { defineTool } from '../tool.ts';

/**
 * Building a course in one call, and putting its curriculum in order: the
 * work an agent does most, which otherwise takes a call per section and
 * lesson and leaves their order to chance.
 */

const MAX_SECTIONS = 50;
const MAX_LESSONS = 100;

export const buildCourse = defineTool({
  name: 'build_course',
  toolset: 'courses',
  title: 'Build a course with its curriculum',
  description: `Creates a course with its sections and lessons in one call, in the order given (array order is position), and publishes it with publish true. Every value is checked before anything is written; if a write still fails, what was created is removed. With dry_run it is checked and shown, not stored. course takes the fields of create_record's courses, each section a title and lessons, each lesson the lesson fields (title, kind, duration_minutes, free_preview, content).`,
  scopes: ['courses:write', 'curriculum:write'],
  readOnly: false,
  idempotent: false,
  input: {
    course: z.record(z.string(), z.unknown()).describe('The course fields (title required)'),
    sections: z
      .array(z.object({ title: z.string().min(1).max(200), lessons: z.array(z.record(z.string(), z.unknown())).max(MAX_LESSONS).default([]) }).strict())
      .max(MAX_SECTIONS)
      .default([])
      .describe('Sections in order, each with its lessons in order'),
    publish: z.boolean().default(false).describe('true: publish it once built (it needs a lesson)'),
    dry_run: z.boolean().default(false).describe('true: check and show, writing nothing'),
  },
  async run(ctx, args) {
    // Everything is checked first, so a mistake in the last lesson writes nothing.
    const course = checkValues(AREAS.courses, args.course, 'create');
    const sections = args.sections.map((s, i) => ({
      title: s.title,
      lessons: s.lessons.map((l, j) => {
        try {
          return checkValues(AREAS.lessons, l, 'create', ['section_id', 'position']);
        } catch (err) {
          throw err instanceof PlatformError ? new PlatformError('invalid_request', `sections[${i}].lessons[${j}]: ${err.description}`) : err;
        }
      }),
    }));
    const lessonCount = sections.reduce((n, s) => n + s.lessons.length, 0);
    if (args.publish && lessonCount === 0)
      throw new PlatformError('invalid_request', 'publish: a course is published with at least one section holding a lesson; give sections with lessons or publish false');
    if (args.publish) course.status = 'published';
    const built = await ctx.records.create(AREAS.courses, args.publish ? { ...course, status: 'draft' } : course, { dryRun: args.dry_run });
    const outline: { id: string | null; title: string; lessons: { id: string | null; title: unknown }[] }[] = [];
    if (args.dry_run) {
      for (const s of sections) outline.push({ id: null, title: s.title, lessons: s.lessons.map((l) => ({ id: null, title: l.title })) });
    } else {
      try {
        for (const [i, s] of sections.entries()) {
          const section = await ctx.records.create(AREAS.sections, { course_id: built.id, title: s.title, position: i });
          const lessons = [];
          for (const [j, l] of s.lessons.entries()) {
            const lesson = await ctx.records.create(AREAS.lessons, { ...l, section_id: section.id, position: j });
            lessons.push({ id: String(lesson.id), title: lesson.title });
          }
          outline.push({ id: String(section.id), title: s.title, lessons });
        }
        if (args.publish) Object.assign(built, await ctx.records.update(AREAS.courses, String(built.id), { status: 'published' }));
      } catch (err) {
        // The course takes its sections and lessons with it: nothing half-built is left.
        await ctx.records.delete(AREAS.courses, String(built.id)).catch((cleanup: unknown) => ctx.log.error({ err: cleanup }, 'build_course could not remove a half-built course'));
        throw err;
      }
    }
    const shown: Record<string, unknown> = { ...built, status: args.publish ? 'published' : built.status };
    const text = `${args.dry_run ? 'Would build' : 'Built'} "${String(shown.title)}"${args.dry_run ? '' : ` (id ${String(shown.id)})`}, ${String(shown.status)}: ${sections.length} section${sections.length === 1 ? '' : 's'}, ${lessonCount} lesson${lessonCount === 1 ? '' : 's'}.`;
    return { structured: { dry_run: args.dry_run, course: shown, sections: outline }, text };
  },
});

export const reorderCurriculum = defineTool({
  name: 'reorder_curriculum',
  toolset: 'courses',
  title: "Put a course's curriculum in order",
  description:
    "Sets the order of a course's sections (every section id once) and, per section, of its lessons (every lesson id of that section once), as POST /api/v1/courses/{id}/curriculum/reorder does. get_course shows the ids.",
  scopes: ['curriculum:write'],
  readOnly: false,
  idempotent: true,
  input: {
    course_id: z.string().min(5).max(100).describe('The course id'),
    sections: z.array(z.string().max(100)).max(MAX_SECTIONS).describe('Every section id of the course, in the new order'),
    lessons: z
      .record(z.string().max(100), z.array(z.string().max(100)).max(MAX_LESSONS))
      .optional()
      .describe('Section id → every lesson id of it, in the new order'),
  },
  async run(ctx, args) {
    const result = await new CurriculumService(ctx.deps, ctx.records).reorder(args.course_id, { sections: args.sections, ...(args.lessons ? { lessons: args.lessons } : {}) });
    return { structured: { course_id: args.course_id, ...result }, text: `Reordered ${result.sections.length} sections of course ${args.course_id}.` };
  },
});
