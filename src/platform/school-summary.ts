import type { Deps } from '../deps.ts';
import { AREAS } from './areas.ts';
import { SchoolSettingsService } from './school-settings.ts';
import { ALL_TIME } from '../store/analytics-rule.ts';
import { periodOf } from '../util/calendar-periods.ts';
import { counterTotals, inCurrency } from './counter-totals.ts';

/**
 * A school at a glance: courses by status, students, enrollments, orders paid
 * in the current month (UTC) with their revenue, and published events still
 * to come. All but the events are read from the analytics counters
 * (src/store/analytics-rule.ts); the events are a count over an index.
 * Revenue adds up orders in the school's currency only, as the analytics
 * report does.
 */
export class SchoolSummaryService {
  constructor(private readonly deps: Deps) {}

  async summary() {
    const now = this.deps.now();
    const records = this.deps.store.records;
    const month = periodOf(now, 'month');
    const { currency } = await new SchoolSettingsService(this.deps).read();
    const sum = counterTotals(await this.deps.store.analytics.counters([month, ALL_TIME]));
    const courses: Record<string, number> = {};
    for (const status of AREAS.courses.fields.status.enum) courses[status] = sum([ALL_TIME], 'courses', (d) => d === status);
    return {
      month,
      currency,
      courses,
      students: sum([ALL_TIME], 'students'),
      enrollments: sum([ALL_TIME], 'enrollments'),
      orders_paid_this_month: sum([month], 'orders_paid'),
      revenue_this_month_cents: sum([month], 'revenue_cents', inCurrency(currency)),
      upcoming_events: await records.count('events', [
        ['status', '=', 'published'],
        ['starts_at', '>=', now],
      ]),
    };
  }
}
