import type { Deps } from '../deps.ts';
import { periodsOf, resolveRange, type Interval } from './analytics-periods.ts';
import type { CounterRow } from '../store/types.ts';
import { SchoolSettingsService } from './school-settings.ts';

export interface AnalyticsQuery {
  from?: string;
  to?: string;
  interval?: Interval;
}

/** The counter holding how many students were active in a period (src/store/kysely/analytics.ts). */
const ACTIVE_STUDENTS = 'active_students';

/** Adds up counters by period label and metric; `keep` picks the dimensions (currencies) that count. */
function totals(rows: CounterRow[], keep: (metric: string, dimension: string) => boolean): (labels: string[], metric: string) => number {
  const sums = new Map<string, number>();
  for (const r of rows) {
    if (!keep(r.metric, r.dimension)) continue;
    const key = `${r.period}\u0000${r.metric}`;
    sums.set(key, (sums.get(key) ?? 0) + r.value);
  }
  return (labels, metric) => labels.reduce((sum, label) => sum + (sums.get(`${label}\u0000${metric}`) ?? 0), 0);
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
    const { analytics, records } = this.deps.store;
    const labelsOf = (p: { label: string; partial: string[] }) => (p.partial.length > 0 ? p.partial : [p.label]);
    const rows = await analytics.counters(periods.flatMap(labelsOf));
    const sum = totals(rows, (metric, dimension) => metric !== 'revenue_cents' || dimension === '' || dimension === currency);
    const series = <K extends string>(metric: string, key: K) => periods.map((p) => ({ period: p.label, [key]: sum(labelsOf(p), metric) }) as { period: string } & Record<K, number>);
    const total = (metric: string) => sum(periods.flatMap(labelsOf), metric);
    const active = [];
    for (const p of periods) active.push({ period: p.label, count: p.partial.length > 0 ? await analytics.activeStudents(p.partial) : sum([p.label], ACTIVE_STUDENTS) });
    const enrollments = total('enrollments');

    return {
      currency,
      interval,
      from: range.from,
      to: range.to,
      enrollments: series('enrollments', 'count'),
      revenue: series('revenue_cents', 'total_cents'),
      active_students: active,
      lessons_completed: series('lessons_completed', 'count'),
      enrollments_completed: series('enrollments_completed', 'count'),
      totals: {
        students: await records.count('students', []),
        courses_published: await records.count('courses', [['status', '=', 'published']]),
        enrollments,
        revenue_cents: total('revenue_cents'),
        active_subscriptions: await records.count('subscriptions', [['status', '=', 'active']]),
        lessons_completed: total('lessons_completed'),
        enrollments_completed: total('enrollments_completed'),
        average_progress_percent: enrollments ? Math.round(total('progress_sum') / enrollments) : null,
      },
    };
  }
}
