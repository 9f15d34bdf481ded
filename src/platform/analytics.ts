import type { Deps } from '../deps.ts';
import { periodOf, periodsOf, resolveRange, type Interval } from './analytics-periods.ts';
import type { Condition, Row } from '../store/types.ts';
import { SchoolSettingsService } from './school-settings.ts';

export interface AnalyticsQuery {
  from?: string;
  to?: string;
  interval?: Interval;
}

/** One count per period, every period present (zero when nothing happened). */
function series(periods: string[]): Map<string, number> {
  return new Map(periods.map((p) => [p, 0]));
}

const asList = <K extends string>(m: Map<string, number>, key: K) => [...m].map(([period, n]) => ({ period, [key]: n }) as { period: string } & Record<K, number>);

/**
 * The analytics report, computed from the records on each request (nothing is
 * stored). Revenue counts orders with status paid by paid_at, in the school's
 * currency only (orders in another currency cannot be added to it; an order
 * without a currency is taken to be in the school's). A student is active in a
 * period when an enrollment of theirs was created or an order of theirs paid in it.
 * Lessons completed count completions by their time (an undone one no longer
 * counts); enrollments completed count enrollments whose last lesson was
 * completed in the period and still are; the average progress is that of the
 * enrollments created in the range, as they stand now.
 */
export class AnalyticsService {
  constructor(private readonly deps: Deps) {}

  async report(query: AnalyticsQuery) {
    const interval = query.interval ?? 'month';
    const range = resolveRange(query, this.deps.now());
    const periods = periodsOf(range, interval);
    const { currency } = await new SchoolSettingsService(this.deps).read();
    const records = this.deps.store.records;

    const inRange = (column: string): Condition[] => [
      [column, '>=', range.start],
      [column, '<', range.end],
    ];
    const enrollmentRows = await records.select('enrollments', ['student_id', 'created_at', 'progress_percent'], inRange('created_at'));
    const lessonCompletionRows = await records.select('lesson_completions', ['completed_at'], inRange('completed_at'));
    const courseCompletionRows = await records.select('enrollments', ['completed_at'], inRange('completed_at'));
    const orderRows = await records.select(
      'orders',
      ['student_id', 'total_cents', 'currency', 'paid_at'],
      [
        ['status', '=', 'paid'],
        ['paid_at', '>=', range.start],
        ['paid_at', '<', range.end],
      ],
    );

    const enrollments = series(periods);
    const revenue = series(periods);
    const active = new Map<string, Set<string>>(periods.map((p) => [p, new Set()]));
    let enrollmentTotal = 0;
    let revenueTotal = 0;

    for (const row of enrollmentRows) {
      const period = periodOf(Number(row.created_at), interval);
      enrollments.set(period, (enrollments.get(period) ?? 0) + 1);
      enrollmentTotal++;
      if (row.student_id) active.get(period)?.add(String(row.student_id));
    }
    const perPeriod = (rows: Row[], column: string) => {
      const counts = series(periods);
      for (const row of rows) {
        const period = periodOf(Number(row[column]), interval);
        counts.set(period, (counts.get(period) ?? 0) + 1);
      }
      return counts;
    };
    const progressSum = enrollmentRows.reduce((sum, row) => sum + Number(row.progress_percent ?? 0), 0);
    for (const row of orderRows) {
      const period = periodOf(Number(row.paid_at), interval);
      if (row.student_id) active.get(period)?.add(String(row.student_id));
      const orderCurrency = typeof row.currency === 'string' && row.currency ? row.currency.toUpperCase() : currency;
      if (orderCurrency !== currency) continue;
      const cents = Number(row.total_cents ?? 0);
      revenue.set(period, (revenue.get(period) ?? 0) + cents);
      revenueTotal += cents;
    }

    return {
      currency,
      interval,
      from: range.from,
      to: range.to,
      enrollments: asList(enrollments, 'count'),
      revenue: asList(revenue, 'total_cents'),
      active_students: [...active].map(([period, ids]) => ({ period, count: ids.size })),
      lessons_completed: asList(perPeriod(lessonCompletionRows, 'completed_at'), 'count'),
      enrollments_completed: asList(perPeriod(courseCompletionRows, 'completed_at'), 'count'),
      totals: {
        students: await records.count('students', []),
        courses_published: await records.count('courses', [['status', '=', 'published']]),
        enrollments: enrollmentTotal,
        revenue_cents: revenueTotal,
        active_subscriptions: await records.count('subscriptions', [['status', '=', 'active']]),
        lessons_completed: lessonCompletionRows.length,
        enrollments_completed: courseCompletionRows.length,
        average_progress_percent: enrollmentRows.length ? Math.round(progressSum / enrollmentRows.length) : null,
      },
    };
  }
}
