import { PlatformError } from './errors.ts';
import { DAY_MS as DAY, periodBounds, periodOf } from '../util/calendar-periods.ts';

/**
 * Date ranges and period buckets of the analytics report. All in UTC: a day
 * is 00:00Z to 24:00Z; months are calendar months ("2025-03"); weeks are ISO
 * 8601 weeks starting on Monday ("2025-W09").
 */
/** The lengths of a report's periods: calendar months or ISO weeks. */
export const INTERVALS = ['month', 'week'] as const;
export type Interval = (typeof INTERVALS)[number];

export interface DateRange {
  /** First instant, epoch ms. */
  start: number;
  /** First instant after the range (the day after `to`), epoch ms. */
  end: number;
  from: string;
  to: string;
}

const MAX_YEARS = 5;
const dayString = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** "YYYY-MM-DD", a real calendar day from 1970 on → its first instant. */
export function parseDay(name: string, raw: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw);
  const ms = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : NaN;
  if (!m || Number(m[1]) < 1970 || dayString(ms) !== raw) throw new PlatformError('invalid_request', `${name} must be a date as YYYY-MM-DD (1970 or later)`);
  return ms;
}

/**
 * from/to are inclusive days. Defaults: `to` today, `from` the first day of the
 * month eleven months earlier (twelve calendar months). from after to, or a
 * range longer than five years, is refused.
 */
export function resolveRange(query: { from?: string; to?: string }, now: number): DateRange {
  const today = Math.floor(now / DAY) * DAY;
  const to = query.to !== undefined ? parseDay('to', query.to) : today;
  const toDate = new Date(to);
  const from = query.from !== undefined ? parseDay('from', query.from) : Date.UTC(toDate.getUTCFullYear(), toDate.getUTCMonth() - 11, 1);
  if (from > to) throw new PlatformError('invalid_request', 'from must not be after to');
  const earliest = Date.UTC(toDate.getUTCFullYear() - MAX_YEARS, toDate.getUTCMonth(), toDate.getUTCDate());
  if (from < earliest) throw new PlatformError('invalid_request', `The range may span at most ${MAX_YEARS} years`);
  return { start: from, end: to + DAY, from: dayString(from), to: dayString(to) };
}

/** One period of a report: its label and, when the range covers only part of it, the days it covers. */
export interface ReportPeriod {
  label: string;
  /** Empty when the whole period lies in the range; else the days (labels) of it that do. */
  partial: string[];
  /** When partial: the period's days outside the range, as [first, last] day labels (one or two spans). */
  outside: [string, string][];
}

/** Every period overlapping the range, in order: the series have no gaps. */
export function periodsOf(range: DateRange, interval: Interval): ReportPeriod[] {
  const out: ReportPeriod[] = [];
  for (let t = range.start; t < range.end;) {
    const { start, end } = periodBounds(t, interval);
    const partial: string[] = [];
    const outside: [string, string][] = [];
    if (start < range.start || end > range.end) {
      for (let day = Math.max(start, range.start); day < Math.min(end, range.end); day += DAY) partial.push(periodOf(day, 'day'));
      if (start < range.start) outside.push([periodOf(start, 'day'), periodOf(range.start - DAY, 'day')]);
      if (end > range.end) outside.push([periodOf(range.end, 'day'), periodOf(end - DAY, 'day')]);
    }
    out.push({ label: periodOf(start, interval), partial, outside });
    t = end;
  }
  return out;
}
