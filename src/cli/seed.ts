import { clearPlatform, DEMO_SCHOOL_NAME, describeCounts, seedDemo } from '../demo/seed.ts';
import type { Store } from '../store/types.ts';
import { parseFlags, UsageError } from './args.ts';

const USAGE = 'usage: lyceum seed --demo (replaces all school data with the demo school; users and apps are kept)';

/**
 * `lyceum seed --demo`: empties the platform's tables and writes the demo
 * school again. Arguments are checked before any store is opened.
 */
export function seedCommand(args: string[]): (store: Store) => Promise<void> {
  const { values, positionals } = parseFlags(args, { demo: { type: 'boolean' } });
  if (!values.demo || positionals.length > 0) throw new UsageError(USAGE);
  return async (store) => {
    await clearPlatform(store);
    const counts = await seedDemo(store, Date.now());
    console.log(`seeded the demo school "${DEMO_SCHOOL_NAME}": ${describeCounts(counts)}`);
  };
}
