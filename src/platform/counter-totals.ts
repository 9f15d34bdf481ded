import type { CounterRow } from '../store/types.ts';

/** Which of a metric's dimensions to add up; undefined: all of them. */
export type DimensionFilter = (dimension: string) => boolean;

/** Revenue the school can add up: in its currency, or with none (taken to be in the school's). */
export const inCurrency =
  (currency: string): DimensionFilter =>
  (dimension) =>
    dimension === '' || dimension === currency;

/**
 * The analytics counters read for a report (src/store/analytics-rule.ts),
 * added up on demand: a metric over some periods, over the dimensions the
 * filter lets through.
 */
export function counterTotals(rows: CounterRow[]): (periods: string[], metric: string, dimension?: DimensionFilter) => number {
  const byKey = new Map<string, CounterRow[]>();
  for (const r of rows) {
    const key = `${r.period}\u0000${r.metric}`;
    const list = byKey.get(key);
    if (list) list.push(r);
    else byKey.set(key, [r]);
  }
  return (periods, metric, dimension) => {
    let n = 0;
    for (const period of periods) for (const r of byKey.get(`${period}\u0000${metric}`) ?? []) if (!dimension || dimension(r.dimension)) n += r.value;
    return n;
  };
}
