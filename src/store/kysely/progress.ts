import type { Kysely, Transaction } from 'kysely';
import { isCourseComplete, progressPercent } from '../progress-rule.ts';
import type { LessonCompletion, ProgressChange, ProgressStore, Row } from '../types.ts';
import { CounterChange } from '../analytics-rule.ts';
import { appendActivity } from './activity.ts';
import { applyCounterChange } from './analytics.ts';
import { appendEvents } from './outbox.ts';
import type { Database } from './schema.ts';

/* The platform tables are not in the typed schema (records.ts reads them the same way). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyTrx = Transaction<any>;

const toCompletion = (r: Row): LessonCompletion => ({
  enrollmentId: String(r.enrollment_id),
  lessonId: String(r.lesson_id),
  courseId: String(r.course_id),
  completedAt: Number(r.completed_at),
});

/**
 * Takes the enrollment's row lock for the rest of the transaction (a write of
 * a column to itself): on PostgreSQL a racing completion of the same
 * enrollment waits here, then counts with this one committed (READ COMMITTED
 * reads each statement afresh); SQLite holds one writer at a time anyway.
 * Undefined for an unknown enrollment.
 */
async function lockEnrollment(trx: AnyTrx, id: string): Promise<Row | undefined> {
  const r = await trx
    .updateTable('enrollments')
    .set((eb) => ({ updated_at: eb.ref('updated_at') }))
    .where('id', '=', id)
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) === 0) return undefined;
  return (await trx.selectFrom('enrollments').selectAll().where('id', '=', id).executeTakeFirst()) as Row | undefined;
}

/**
 * The enrollment's percent (progress-rule.ts) from its course's lessons as they
 * are now: a completed lesson counts while it still belongs to the course.
 */
async function recompute(trx: AnyTrx, enrollment: Row, now: number, changed: boolean, counters: CounterChange): Promise<Omit<ProgressChange, 'completion' | 'changed'>> {
  const courseId = String(enrollment.course_id);
  const total = Number(
    (
      (await trx
        .selectFrom('lessons')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('course_id', '=', courseId)
        .executeTakeFirst()) as { n: unknown }
    ).n,
  );
  const done = Number(
    (
      (await trx
        .selectFrom('lesson_completions as c')
        .innerJoin('lessons as l', 'l.id', 'c.lesson_id')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('c.enrollment_id', '=', String(enrollment.id))
        .where('l.course_id', '=', courseId)
        .executeTakeFirst()) as { n: unknown }
    ).n,
  );
  const complete = isCourseComplete(done, total);
  const percent = progressPercent(done, total);
  const before = enrollment.completed_at === null || enrollment.completed_at === undefined ? null : Number(enrollment.completed_at);
  const completedAt = complete ? (before ?? now) : null;
  let row = enrollment;
  if (changed || Number(enrollment.progress_percent) !== percent || before !== completedAt) {
    await trx.updateTable('enrollments').set({ progress_percent: percent, completed_at: completedAt, updated_at: now }).where('id', '=', String(enrollment.id)).execute();
    row = { ...enrollment, progress_percent: percent, completed_at: completedAt, updated_at: now };
    counters.row('enrollments', enrollment, row);
  }
  return { enrollment: row, completedLessons: done, totalLessons: total };
}

export function kyselyProgressStore(db: AnyDb): ProgressStore {
  return {
    async complete(enrollmentId, lessonId, courseId, now, events, activity) {
      return db.transaction().execute(async (trx) => {
        const enrollment = await lockEnrollment(trx, enrollmentId);
        if (!enrollment) return undefined;
        const inserted = await trx
          .insertInto('lesson_completions')
          .values({ enrollment_id: enrollmentId, lesson_id: lessonId, course_id: courseId, completed_at: now })
          .onConflict((oc) => oc.columns(['enrollment_id', 'lesson_id']).doNothing())
          .executeTakeFirst();
        const changed = Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
        const completion = (await trx.selectFrom('lesson_completions').selectAll().where('enrollment_id', '=', enrollmentId).where('lesson_id', '=', lessonId).executeTakeFirst()) as Row;
        const counters = new CounterChange();
        if (changed) counters.row('lesson_completions', undefined, completion);
        const change: ProgressChange = { ...(await recompute(trx, enrollment, now, changed, counters)), completion: toCompletion(completion), changed };
        if (events) await appendEvents(trx, events(change, enrollment));
        if (activity && changed) await appendActivity(trx, activity);
        await applyCounterChange(trx as unknown as Kysely<Database>, counters);
        return change;
      });
    },
    async uncomplete(enrollmentId, lessonId, now, activity) {
      return db.transaction().execute(async (trx) => {
        const enrollment = await lockEnrollment(trx, enrollmentId);
        if (!enrollment) return undefined;
        const deleted = (await trx.deleteFrom('lesson_completions').where('enrollment_id', '=', enrollmentId).where('lesson_id', '=', lessonId).returningAll().execute()) as Row[];
        const changed = deleted.length > 0;
        const counters = new CounterChange();
        if (changed) counters.row('lesson_completions', deleted[0], undefined);
        if (activity && changed) await appendActivity(trx, activity);
        const change = { ...(await recompute(trx, enrollment, now, changed, counters)), completion: null, changed };
        await applyCounterChange(trx as unknown as Kysely<Database>, counters);
        return change;
      });
    },
    async completions(enrollmentId) {
      const rows = (await db
        .selectFrom('lesson_completions as c')
        .innerJoin('lessons as l', 'l.id', 'c.lesson_id')
        .select(['c.enrollment_id', 'c.lesson_id', 'l.course_id', 'c.completed_at'])
        .where('c.enrollment_id', '=', enrollmentId)
        .orderBy('c.completed_at')
        .orderBy('c.lesson_id')
        .execute()) as Row[];
      return rows.map(toCompletion);
    },
  };
}
