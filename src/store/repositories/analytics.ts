/** One counter as stored: a metric's total over a period (a day, week, month or 'all'), per dimension (an order's currency, or ''). */
export interface CounterRow {
  period: string;
  metric: string;
  dimension: string;
  value: number;
}

/**
 * The analytics counters (src/store/analytics-rule.ts), kept current by the
 * record and progress stores in the transaction of each change, so that a
 * report reads a few rows per period whatever the size of the school.
 */
export interface AnalyticsStore {
  /** Every counter of these periods. `active_students` holds the students active in the period. */
  counters(periods: string[]): Promise<CounterRow[]>;
  /** How many different students were active over these periods (days, for a period the range covers in part). */
  activeStudents(periods: string[]): Promise<number>;
  /** Whether any student was active on a day from `first` to `last` (day labels, inclusive): one index probe. */
  activeBetween(first: string, last: string): Promise<boolean>;
  /**
   * Counts every stored row again from scratch, in one transaction, and
   * returns how many rows it read. Changes made meanwhile wait for it and are
   * counted on top, so it may run while the school is in use.
   */
  rebuild(): Promise<number>;
}
