import type { Store } from '../store/types.ts';
import { UsageError } from './args.ts';

const USAGE = 'usage: lyceum analytics rebuild (counts the analytics figures again from the stored records)';

/**
 * `lyceum analytics rebuild`: the counters the report reads are kept with
 * every change; this counts them again from the records, for data written
 * by other means (a restore, an import, an instance of an older version).
 */
export async function analyticsCommand(store: Store, args: string[]): Promise<void> {
  if (args.length !== 1 || args[0] !== 'rebuild') throw new UsageError(USAGE);
  const started = Date.now();
  const rows = await store.analytics.rebuild();
  console.log(`analytics counted again from ${rows} records in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
