import type { Deps } from '../deps.ts';
import { periodOf, periodsOf, resolveRange, type Interval } from './analytics-periods.ts';
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
 */
export class AnalyticsService {
  constructor(private readonly deps: Deps) {}

  async report(query: AnalyticsQuery) {
    const interval = query.interval ?? 'month';
    const range = resolveRange(query, this.deps.now());
    const periods = periodsOf(range, interval);
    const { currency } = await new SchoolSettingsService(this.deps).read();
    const records = this.deps.store.records;

    const enrollmentRows = await records.select('enrollments', ['student_id', 'created_at'], [['created_at', '>=', range.start], ['created_at', '<', range.end]]);
    const orderRows = await records.select('orders', ['student_id', 'total_cents', 'currency', 'paid_at'], [['status', '=', 'paid'], ['paid_at', '>=', range.start], ['paid_at', '<', range.end]]);

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
      totals: {
        students: await records.count('students', []),
        courses_published: await records.count('courses', [['status', '=', 'published']]),
        enrollments: enrollmentTotal,
        revenue_cents: revenueTotal,
        active_subscriptions: await records.count('subscriptions', [['status', '=', 'active']]),
      },
    };
  }
}
