import { isCourseComplete, progressPercent } from '../store/progress-rule.ts';
import type { Row } from '../store/types.ts';

/**
 * The demo's lesson completions, made from each enrollment's declared
 * percent: the first lessons of the course in curriculum order, as many as
 * the percent covers (all of them only at 100), spread between the
 * enrollment's start and its last activity. The enrollment's progress_percent
 * and completed_at are then set from them by the rule the API computes with,
 * so the demo's figures are the ones a completion would produce.
 * `lessons` are in curriculum order; the enrollment rows are updated in place.
 */
export function demoCompletions(enrollments: Row[], lessons: Row[]): Row[] {
  const byCourse = new Map<unknown, Row[]>();
  for (const lesson of lessons) byCourse.set(lesson.course_id, [...(byCourse.get(lesson.course_id) ?? []), lesson]);
  const completions: Row[] = [];
  for (const e of enrollments) {
    const list = byCourse.get(e.course_id) ?? [];
    const declared = Number(e.progress_percent);
    const done = declared >= 100 ? list.length : Math.max(0, Math.min(list.length - 1, Math.round((declared * list.length) / 100)));
    const start = Number(e.created_at);
    const end = Number(e.completed_at ?? e.updated_at);
    let last = start;
    for (const [i, lesson] of list.slice(0, done).entries()) {
      last = start + Math.floor(((end - start) * (i + 1)) / done);
      completions.push({ enrollment_id: e.id, lesson_id: lesson.id, course_id: e.course_id, completed_at: last });
    }
    e.progress_percent = progressPercent(done, list.length);
    e.completed_at = isCourseComplete(done, list.length) ? last : null;
  }
  return completions;
}
