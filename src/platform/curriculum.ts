import { writeEntry } from '../activity/record.ts';
import type { Deps } from '../deps.ts';
import { PlatformError } from './errors.ts';
import type { Caller } from '../resource/guard.ts';
import { AREAS } from './areas.ts';
import { listAll } from './list-all.ts';
import type { RecordService, View } from './records.ts';

export interface Outline {
  course: Record<string, unknown>;
  sections: (Record<string, unknown> & { lessons: Record<string, unknown>[] })[];
}

export interface ReorderInput {
  sections: string[];
  lessons?: Record<string, string[]>;
}

/**
 * curriculum:read sees every course's outline with all fields; everyone else
 * sees published courses only, public fields only (never a lesson's content).
 */
export function curriculumView(caller: Caller): View {
  return caller.kind === 'token' && caller.scopes.has('curriculum:read') ? 'full' : 'public';
}

const sameMembers = (given: string[], actual: string[]) => given.length === actual.length && new Set(given).size === given.length && actual.every((id) => given.includes(id));

/** A course's sections and lessons, in order, read and reordered through RecordService. */
export class CurriculumService {
  constructor(
    private readonly deps: Deps,
    private readonly records: RecordService,
  ) {}

  async outline(courseId: string, view: View): Promise<Outline> {
    // A public view hides unpublished courses as if they did not exist (404 not_found).
    const courseRow = await this.records.getRow(AREAS.courses, view, courseId);
    const course = { id: courseRow.id, title: courseRow.title, slug: courseRow.slug, status: courseRow.status };
    const sections = await listAll(this.records, AREAS.sections, view, { course_id: courseId });
    const lessons = await listAll(this.records, AREAS.lessons, view, { course_id: courseId });
    const bySection = new Map<unknown, Record<string, unknown>[]>(sections.map((s) => [s.id, []]));
    for (const lesson of lessons) bySection.get(lesson.section_id)?.push(lesson);
    return { course, sections: sections.map((s) => ({ ...s, lessons: bySection.get(s.id) ?? [] })) };
  }

  /**
   * Sets positions 0, 1, 2 ... in the order given. `sections` must list every
   * section of the course exactly once; each `lessons` entry names one of its
   * sections and lists every lesson of that section exactly once (moving a
   * lesson to another section is a PATCH of its section_id). Anything else is
   * 400 and nothing changes. Positions are written one by one, not in a transaction.
   */
  async reorder(courseId: string, input: ReorderInput): Promise<{ sections: { id: string; position: number; lessons: { id: string; position: number }[] }[] }> {
    await this.records.getRow(AREAS.courses, 'full', courseId);
    const sections = await listAll(this.records, AREAS.sections, 'full', { course_id: courseId });
    const lessons = await listAll(this.records, AREAS.lessons, 'full', { course_id: courseId });
    const sectionIds = sections.map((s) => String(s.id));
    if (!sameMembers(input.sections, sectionIds)) {
      throw new PlatformError('invalid_request', `sections must list each of the course's ${sectionIds.length} section ids exactly once`);
    }
    const lessonsOf = (sectionId: string) => lessons.filter((l) => l.section_id === sectionId);
    for (const [sectionId, ids] of Object.entries(input.lessons ?? {})) {
      if (!sectionIds.includes(sectionId)) throw new PlatformError('invalid_request', `lessons: ${sectionId} is not a section of this course`);
      const actual = lessonsOf(sectionId).map((l) => String(l.id));
      if (!sameMembers(ids, actual)) throw new PlatformError('invalid_request', `lessons.${sectionId} must list each of the section's ${actual.length} lesson ids exactly once`);
    }
    await this.writePositions('sections', input.sections, sections);
    for (const [sectionId, ids] of Object.entries(input.lessons ?? {})) await this.writePositions('lessons', ids, lessonsOf(sectionId));
    const after = await listAll(this.records, AREAS.lessons, 'full', { course_id: courseId });
    return {
      sections: input.sections.map((id, position) => ({
        id,
        position,
        lessons: after.filter((l) => l.section_id === id).map((l) => ({ id: String(l.id), position: Number(l.position) })),
      })),
    };
  }

  /** Only records whose position changes are written. */
  private async writePositions(table: 'sections' | 'lessons', order: string[], current: Record<string, unknown>[]): Promise<void> {
    const now = this.deps.now();
    for (const [position, id] of order.entries()) {
      if (current.find((r) => r.id === id)?.position === position) continue;
      await this.deps.store.records.update(table, id, { position, updated_at: now }, undefined, await writeEntry(this.deps, 'record.updated', table, id, ['position']));
    }
  }
}
