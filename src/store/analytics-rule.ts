import { periodOf } from '../util/calendar-periods.ts';
import type { Row } from './repositories/records.ts';

/**
 * What each stored row adds to the analytics counters. The store applies the
 * difference a write makes (what the row added after it, less what it added
 * before) in the write's transaction, and the rebuild replays every row
 * through the same rule, so the two cannot disagree.
 *
 * - An enrollment counts once on the day it was created, its progress percent
 *   is summed there (for the average), and once more on the day its course was
 *   completed, while it is.
 * - A lesson completion counts on its day; an undone one is gone.
 * - An order counts while its status is paid, on the day it was paid, with
 *   its total, under its currency ('' when it has none: the school's).
 * - A student is active in a period when an enrollment of theirs was created,
 *   or an order of theirs paid, in it.
 * - The school's totals are counted for all time only: students, courses by
 *   status (`courses_<status>`), subscriptions by status (`subscriptions_<status>`).
 */
export const COUNTER_METRICS = ['enrollments', 'progress_sum', 'enrollments_completed', 'lessons_completed', 'orders_paid', 'revenue_cents', 'students', 'courses', 'subscriptions'] as const;
export type CounterMetric = (typeof COUNTER_METRICS)[number];

/** The tables whose rows count, and the column of each row's key (lesson completions have no id). */
export const COUNTED_TABLES: Record<string, readonly string[]> = {
  enrollments: ['id'],
  lesson_completions: ['enrollment_id', 'lesson_id'],
  orders: ['id'],
  students: ['id'],
  courses: ['id'],
  subscriptions: ['id'],
};

/** Rows the database deletes with a row of these tables (foreign keys ON DELETE CASCADE): [table, column]. */
export const COUNTED_CASCADES: Record<string, readonly [string, string][]> = {
  enrollments: [['lesson_completions', 'enrollment_id']],
  lessons: [['lesson_completions', 'lesson_id']],
};

/** The counter of how many students were active in a period, moved when a student's count of activity leaves or reaches 0. */
export const ACTIVE_STUDENTS = 'active_students';

/** The period an additive counter is kept for besides days, weeks and months: all time. */
export const ALL_TIME = 'all';

interface Contribution {
  /** When it happened; undefined: a total, kept for all time only. */
  at?: number;
  metric: CounterMetric;
  dimension: string;
  amount: number;
}

const time = (v: unknown): number | undefined => (v === null || v === undefined ? undefined : Number(v));

function contributionsOf(table: string, row: Row): { counts: Contribution[]; active: { at: number; studentId: string }[] } {
  const counts: Contribution[] = [];
  const active: { at: number; studentId: string }[] = [];
  if (table === 'enrollments') {
    const created = Number(row.created_at);
    counts.push({ at: created, metric: 'enrollments', dimension: '', amount: 1 });
    counts.push({ at: created, metric: 'progress_sum', dimension: '', amount: Number(row.progress_percent ?? 0) });
    const completed = time(row.completed_at);
    if (completed !== undefined) counts.push({ at: completed, metric: 'enrollments_completed', dimension: '', amount: 1 });
    if (row.student_id) active.push({ at: created, studentId: String(row.student_id) });
  } else if (table === 'lesson_completions') {
    counts.push({ at: Number(row.completed_at), metric: 'lessons_completed', dimension: '', amount: 1 });
  } else if (table === 'orders') {
    const paid = time(row.paid_at);
    if (row.status === 'paid' && paid !== undefined) {
      const currency = typeof row.currency === 'string' ? row.currency.toUpperCase() : '';
      counts.push({ at: paid, metric: 'orders_paid', dimension: currency, amount: 1 });
      counts.push({ at: paid, metric: 'revenue_cents', dimension: currency, amount: Number(row.total_cents ?? 0) });
      if (row.student_id) active.push({ at: paid, studentId: String(row.student_id) });
    }
  } else if (table === 'students') {
    counts.push({ metric: 'students', dimension: '', amount: 1 });
  } else if (table === 'courses' || table === 'subscriptions') {
    counts.push({ metric: table, dimension: String(row.status ?? ''), amount: 1 });
  }
  return { counts, active };
}

/**
 * The net change of many row changes, by counter and by (period, student):
 * what one transaction applies. Keys are kept apart so a statement never
 * touches one counter twice, and are applied in sorted order so that two
 * transactions on PostgreSQL lock shared counters in the same order.
 */
export class CounterChange {
  readonly counts = new Map<string, number>();
  readonly active = new Map<string, number>();

  /** A row of `table` went from `before` to `after` (undefined: it did not exist). */
  row(table: string, before: Row | undefined, after: Row | undefined): this {
    if (!(table in COUNTED_TABLES)) return this;
    if (before) this.add(table, before, -1);
    if (after) this.add(table, after, 1);
    return this;
  }

  get empty(): boolean {
    return this.counts.size === 0 && this.active.size === 0;
  }

  /** [period, metric, dimension, amount] for every counter that changes, sorted. */
  countRows(): [string, CounterMetric, string, number][] {
    return [...this.counts]
      .filter(([, n]) => n !== 0)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, n]) => [...(key.split('\u0000') as [string, CounterMetric, string]), n]);
  }

  /** [period, student id, change] for every (period, student) whose count of activity changes, sorted. */
  activeRows(): [string, string, number][] {
    return [...this.active]
      .filter(([, n]) => n !== 0)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, n]) => [...(key.split('\u0000') as [string, string]), n]);
  }

  private add(table: string, row: Row, sign: 1 | -1): void {
    const { counts, active } = contributionsOf(table, row);
    for (const c of counts) {
      if (c.amount === 0) continue;
      const periods = c.at === undefined ? [ALL_TIME] : [periodOf(c.at, 'day'), periodOf(c.at, 'week'), periodOf(c.at, 'month'), ALL_TIME];
      for (const period of periods) {
        const key = `${period}\u0000${c.metric}\u0000${c.dimension}`;
        this.counts.set(key, (this.counts.get(key) ?? 0) + sign * c.amount);
      }
    }
    for (const a of active) {
      for (const period of [periodOf(a.at, 'day'), periodOf(a.at, 'week'), periodOf(a.at, 'month')]) {
        const key = `${period}\u0000${a.studentId}`;
        this.active.set(key, (this.active.get(key) ?? 0) + sign);
      }
    }
  }
}
