/**
 * An enrollment's percent: its course's lessons completed over the course's
 * lessons, rounded down, so that it is 100 only when every lesson is done and
 * never more. A course without lessons is 0 and never complete. The store
 * writes it with each completion; the progress report computes it live with
 * the same rule.
 */
export function progressPercent(completed: number, total: number): number {
  if (total <= 0) return 0;
  return Math.min(100, Math.floor((completed * 100) / total));
}

/** Every lesson of a course that has lessons is completed. */
export const isCourseComplete = (completed: number, total: number): boolean => total > 0 && completed >= total;
