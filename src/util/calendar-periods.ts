/**
 * The names of the UTC periods an instant falls in: a day ("2025-03-14"), a
 * calendar month ("2025-03") and an ISO 8601 week starting on Monday
 * ("2025-W11"). The three forms never collide, so one column can hold any.
 */
export const DAY_MS = 86_400_000;

export type PeriodKind = 'day' | 'week' | 'month';

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** The label of the period of this kind holding an instant (epoch ms). */
export function periodOf(ms: number, kind: PeriodKind): string {
  const d = new Date(ms);
  if (kind === 'day') return d.toISOString().slice(0, 10);
  if (kind === 'month') return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}`;
  // ISO 8601: a week belongs to the year of its Thursday; week 1 holds the year's first Thursday.
  const day = Math.floor(ms / DAY_MS) * DAY_MS;
  const thursday = day + (3 - ((d.getUTCDay() + 6) % 7)) * DAY_MS;
  const year = new Date(thursday).getUTCFullYear();
  const week = 1 + Math.floor((thursday - Date.UTC(year, 0, 1)) / (7 * DAY_MS));
  return `${year}-W${pad(week)}`;
}

/** The first instant of the period of this kind holding `ms`, and the first instant after it. */
export function periodBounds(ms: number, kind: Exclude<PeriodKind, 'day'>): { start: number; end: number } {
  const d = new Date(ms);
  if (kind === 'month') return { start: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1), end: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) };
  const start = Math.floor(ms / DAY_MS) * DAY_MS - ((d.getUTCDay() + 6) % 7) * DAY_MS;
  return { start, end: start + 7 * DAY_MS };
}
