import type { Deps } from '../deps.ts';
import { AREAS } from './areas.ts';
import { SchoolSettingsService } from './school-settings.ts';

/** The first moment of the UTC month of `now`, and the month as YYYY-MM. */
function monthOf(now: number): { start: number; month: string } {
  const d = new Date(now);
  return { start: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1), month: d.toISOString().slice(0, 7) };
}

/**
 * A school at a glance, counted from its records on each request: courses by
 * status, students, enrollments, orders paid in the current month (UTC) with
 * their revenue, and published events still to come. Revenue adds up orders
 * in the school's currency only, as the analytics report does.
 */
export class SchoolSummaryService {
  constructor(private readonly deps: Deps) {}

  async summary() {
    const now = this.deps.now();
    const records = this.deps.store.records;
    const { start, month } = monthOf(now);
    const { currency } = await new SchoolSettingsService(this.deps).read();
    const courses: Record<string, number> = {};
    for (const status of AREAS.courses.fields.status.enum) courses[status] = await records.count('courses', [['status', '=', status]]);
    const paid = await records.select(
      'orders',
      ['total_cents', 'currency'],
      [
        ['status', '=', 'paid'],
        ['paid_at', '>=', start],
      ],
    );
    const inCurrency = paid.filter((o) => (typeof o.currency === 'string' && o.currency ? o.currency.toUpperCase() : currency) === currency);
    return {
      month,
      currency,
      courses,
      students: await records.count('students', []),
      enrollments: await records.count('enrollments', []),
      orders_paid_this_month: paid.length,
      revenue_this_month_cents: inCurrency.reduce((sum, o) => sum + Number(o.total_cents ?? 0), 0),
      upcoming_events: await records.count('events', [
        ['status', '=', 'published'],
        ['starts_at', '>=', now],
      ]),
    };
  }
}
