import { z } from 'zod';
import { AREAS } from '../../platform/areas.ts';
import { CurriculumService, curriculumView } from '../../platform/curriculum.ts';
import { viewFor } from '../../platform/records.ts';
import { formatMoney } from '../format.ts';
import { defineTool } from '../tool.ts';

export const getCourse = defineTool({
  name: 'get_course',
  toolset: 'catalog',
  title: 'Get a course',
  description: 'One course with its description, price, lecturers and curriculum outline (sections and lessons in order). Use list_courses to find course ids.',
  scopes: [],
  // A draft course, its lessons' private fields and its lecturers' private fields.
  optionalScopes: ['courses:read', 'curriculum:read', 'lecturers:read'],
  readOnly: true,
  input: { id: z.string().min(1).max(100).describe('The course id, e.g. from list_courses') },
  async run(ctx, args) {
    const course = await ctx.records.get(AREAS.courses, viewFor(AREAS.courses, ctx.caller) ?? 'public', args.id);
    const outline = await new CurriculumService(ctx.deps, ctx.records).outline(args.id, curriculumView(ctx.caller));
    const lecturerView = viewFor(AREAS.lecturers, ctx.caller) ?? 'public';
    const ids = Array.isArray(course.lecturer_ids) ? (course.lecturer_ids as unknown[]).filter((x): x is string => typeof x === 'string') : [];
    const lecturers = [];
    for (const id of ids) {
      try {
        lecturers.push(await ctx.records.get(AREAS.lecturers, lecturerView, id));
      } catch {
        // A lecturer removed since the course was written is simply not shown.
      }
    }
    const school = await ctx.deps.store.settings.get('school');
    const currency = typeof school?.currency === 'string' ? school.currency : 'USD';
    const lines = [
      `# ${course.title} (${course.level}, ${formatMoney(course.price_cents, currency)})`,
      ...(course.summary ? [String(course.summary)] : []),
      ...(lecturers.length ? [`Taught by ${lecturers.map((l) => l.name).join(', ')}.`] : []),
      ...outline.sections.flatMap((s, i) => [`${i + 1}. ${s.title}`, ...s.lessons.map((l) => `   - ${l.title} (${l.kind}, ${l.duration_minutes} min${l.free_preview ? ', free preview' : ''})`)]),
    ];
    return { structured: { course, lecturers, curriculum: outline.sections }, text: lines.join('\n') };
  },
});
