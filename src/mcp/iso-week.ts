/** ISO 8601 week dates ("2026-W48"): the weekly report's argument and its completion. */

const DAY_MS = 86_400_000;

/** Days since Monday (ISO 8601 weeks start on Monday). */
const weekday = (ms: number) => (new Date(ms).getUTCDay() + 6) % 7;

/** Midnight UTC of the Monday of week 1 of an ISO year: the week with 4 January in it. */
function firstMonday(year: number): number {
  const jan4 = Date.UTC(year, 0, 4);
  return jan4 - weekday(jan4) * DAY_MS;
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The ISO week that contains the instant `ms` (UTC), e.g. "2026-W48". */
export function isoWeekOf(ms: number): string {
  const monday = Math.floor(ms / DAY_MS) * DAY_MS - weekday(ms) * DAY_MS;
  // The ISO year is the year of the week's Thursday.
  const year = new Date(monday + 3 * DAY_MS).getUTCFullYear();
  const week = Math.floor((monday - firstMonday(year)) / (7 * DAY_MS)) + 1;
  return `${year}-W${String(week).padStart(2, '0')}`;
}

/** Monday and Sunday (YYYY-MM-DD) of an ISO week, or undefined when the year has no such week. */
export function isoWeekDays(week: string): { from: string; to: string } | undefined {
  const m = /^(\d{4})-W(\d{2})$/.exec(week);
  if (!m) return undefined;
  const monday = firstMonday(Number(m[1])) + (Number(m[2]) - 1) * 7 * DAY_MS;
  // W00, or W53 of a year with 52 weeks, names a week of another year.
  if (isoWeekOf(monday) !== week) return undefined;
  return { from: day(monday), to: day(monday + 6 * DAY_MS) };
}

/** The week of `now` and the `count - 1` weeks before it, newest first. */
export function recentIsoWeeks(now: number, count: number): string[] {
  return Array.from({ length: count }, (_, i) => isoWeekOf(now - i * 7 * DAY_MS));
}
