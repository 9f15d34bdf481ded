/**
 * The progress store's contract on each store: a completion and the
 * enrollment's percent and completed_at change together, repeats change
 * nothing, and completions go with their enrollment or lesson.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/kysely/open.ts';
import type { Row, Store } from '../../src/store/types.ts';
import { databaseConfig, freshDatabaseUrl, STORE_KINDS } from '../helpers/stores.ts';

describe.each(STORE_KINDS)('progress store (%s)', (kind) => {
  let store: Store;
  let n = 0;
  const T0 = 1_700_000_000_000;

  const row = (prefix: string, values: Row): Row => ({ id: `${prefix}_${++n}`, created_at: T0, updated_at: T0, ...values });

  /** A course with `count` lessons and one enrollment in it. */
  async function enrollment(count: number) {
    const course = row('crs', { title: 'C', slug: `c-${n}`, status: 'published' });
    await store.records.insert('courses', course);
    const section = row('sec', { course_id: course.id, title: 'S', position: 0 });
    await store.records.insert('sections', section);
    const lessons: string[] = [];
    for (let i = 0; i < count; i++) {
      const lesson = row('les', { section_id: section.id, course_id: course.id, title: `L${i}`, position: i });
      await store.records.insert('lessons', lesson);
      lessons.push(String(lesson.id));
    }
    const student = row('stu', { name: 'N', email: `n${n}@x.test`, status: 'active' });
    await store.records.insert('students', student);
    const e = row('enr', { student_id: student.id, course_id: course.id, progress_percent: 0 });
    await store.records.insert('enrollments', e);
    return { id: String(e.id), courseId: String(course.id), lessons };
  }

  beforeAll(async () => {
    store = openStore(databaseConfig(await freshDatabaseUrl(kind)));
    await store.migrate();
  });

  afterAll(async () => {
    await store?.close();
  });

  it('complete writes the completion and the percent together; a repeat keeps the first time and changes nothing', async () => {
    const e = await enrollment(3);
    const first = await store.progress.complete(e.id, e.lessons[0]!, e.courseId, T0 + 1000);
    expect(first).toMatchObject({ changed: true, completedLessons: 1, totalLessons: 3, completion: { enrollmentId: e.id, lessonId: e.lessons[0], courseId: e.courseId, completedAt: T0 + 1000 } });
    expect(first!.enrollment).toMatchObject({ progress_percent: 33, completed_at: null });
    expect(Number(first!.enrollment.updated_at)).toBe(T0 + 1000);
    const repeat = await store.progress.complete(e.id, e.lessons[0]!, e.courseId, T0 + 2000);
    expect(repeat).toMatchObject({ changed: false, completion: { completedAt: T0 + 1000 } });
    expect(Number(repeat!.enrollment.updated_at)).toBe(T0 + 1000);
  });

  it('completed_at is set by the last lesson, kept by a repeat, and cleared by an undo', async () => {
    const e = await enrollment(2);
    await store.progress.complete(e.id, e.lessons[0]!, e.courseId, T0 + 1);
    const last = await store.progress.complete(e.id, e.lessons[1]!, e.courseId, T0 + 2);
    expect(last!.enrollment).toMatchObject({ progress_percent: 100 });
    expect(Number(last!.enrollment.completed_at)).toBe(T0 + 2);
    const repeat = await store.progress.complete(e.id, e.lessons[1]!, e.courseId, T0 + 3);
    expect(Number(repeat!.enrollment.completed_at)).toBe(T0 + 2);
    const undo = await store.progress.uncomplete(e.id, e.lessons[0]!, T0 + 4);
    expect(undo).toMatchObject({ changed: true, completion: null, completedLessons: 1, enrollment: { progress_percent: 50, completed_at: null } });
    expect(await store.progress.uncomplete(e.id, e.lessons[0]!, T0 + 5)).toMatchObject({ changed: false });
    expect((await store.progress.completions(e.id)).map((c) => c.lessonId)).toEqual([e.lessons[1]]);
  });

  it('an unknown enrollment is undefined and writes nothing', async () => {
    const e = await enrollment(1);
    expect(await store.progress.complete('enr_missing', e.lessons[0]!, e.courseId, T0)).toBeUndefined();
    expect(await store.progress.uncomplete('enr_missing', e.lessons[0]!, T0)).toBeUndefined();
    expect(await store.records.count('lesson_completions', [['enrollment_id', '=', 'enr_missing']])).toBe(0);
  });

  it('completions go with their lesson and their enrollment', async () => {
    const e = await enrollment(2);
    await store.progress.complete(e.id, e.lessons[0]!, e.courseId, T0);
    await store.progress.complete(e.id, e.lessons[1]!, e.courseId, T0);
    await store.records.delete('lessons', e.lessons[0]!);
    expect((await store.progress.completions(e.id)).map((c) => c.lessonId)).toEqual([e.lessons[1]]);
    await store.records.delete('enrollments', e.id);
    expect(await store.records.count('lesson_completions', [['enrollment_id', '=', e.id]])).toBe(0);
  });
});
