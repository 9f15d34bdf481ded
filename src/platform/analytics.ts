import type { Deps } from '../deps.ts';
import { periodsOf, resolveRange, type Interval, type ReportPeriod } from './analytics-periods.ts';
import { ACTIVE_STUDENTS, ALL_TIME } from '../store/analytics-rule.ts';
import { counterTotals, inCurrency, type DimensionFilter } from './counter-totals.ts';
import { SchoolSettingsService } from './school-settings.ts';

export interface AnalyticsQuery {
  from?: string;
  to?: string;
  interval?: Interval;
}

/**
 * The analytics report, read from the counters the store keeps with every
 * change (src/store/analytics-rule.ts says what counts): a period the range
 * covers whole is one row per figure, one it covers in part is the rows of
 * its days in the range, so the cost does not grow with the school. Revenue
 * counts orders with status paid by paid_at, in the school's currency only
 * (orders in another currency cannot be added to it; an order without a
 * currency is taken to be in the school's). A student is active in a period
 * when an enrollment of theirs was created or an order of theirs paid in it.
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
    const { analytics } = this.deps.store;
    const labelsOf = (p: { label: string; partial: string[] }) => (p.partial.length > 0 ? p.partial : [p.label]);
    // A partial period's own counters are read too: its active students may be the whole period's (activeIn).
    const rows = await analytics.counters([ALL_TIME, ...periods.flatMap((p) => [...labelsOf(p), ...(p.partial.length > 0 ? [p.label] : [])])]);
    const sum = counterTotals(rows);
    const revenue = inCurrency(currency);
    const series = <K extends string>(metric: string, key: K, dimension?: DimensionFilter) =>
      periods.map((p) => ({ period: p.label, [key]: sum(labelsOf(p), metric, dimension) }) as { period: string } & Record<K, number>);
    const total = (metric: string, dimension?: DimensionFilter) => sum(periods.flatMap(labelsOf), metric, dimension);
    const active = [];
    for (const p of periods) active.push({ period: p.label, count: await this.activeIn(p, sum) });
    const enrollments = total('enrollments');

    return {
      currency,
      interval,
      from: range.from,
      to: range.to,
      enrollments: series('enrollments', 'count'),
      revenue: series('revenue_cents', 'total_cents', revenue),
      active_students: active,
      lessons_completed: series('lessons_completed', 'count'),
      enrollments_completed: series('enrollments_completed', 'count'),
      totals: {
        students: sum([ALL_TIME], 'students'),
        courses_published: sum([ALL_TIME], 'courses', (status) => status === 'published'),
        enrollments,
        revenue_cents: total('revenue_cents', revenue),
        active_subscriptions: sum([ALL_TIME], 'subscriptions', (status) => status === 'active'),
        lessons_completed: total('lessons_completed'),
        enrollments_completed: total('enrollments_completed'),
        average_progress_percent: enrollments ? Math.round(total('progress_sum') / enrollments) : null,
      },
    };
  }

  /**
   * The students active in the part of a period the range covers. When the
   * period's days outside the range saw no activity (the usual case: the
   * current month up to today, the rest still to come), that is the whole
   * period's counter; otherwise the students of its days are counted.
   */
  private async activeIn(p: ReportPeriod, sum: ReturnType<typeof counterTotals>): Promise<number> {
    const { analytics } = this.deps.store;
    if (p.partial.length === 0) return sum([p.label], ACTIVE_STUDENTS);
    for (const [first, last] of p.outside) if (await analytics.activeBetween(first, last)) return analytics.activeStudents(p.partial);
    return sum([p.label], ACTIVE_STUDENTS);
  }
}
