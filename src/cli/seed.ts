import { clearPlatform, DEMO_SCHOOL_NAME, describeCounts, seedDemo } from '../demo/seed.ts';
import type { Store } from '../store/types.ts';
import { parseFlags, UsageError } from './args.ts';

const USAGE =
  'usage: lyceum seed --demo (replaces all school data with the demo school; users and apps are kept) | lyceum seed --scale N (the demo school grown to N students, 30 to 1,000,000, with five years of history)';
const MAX_SCALE = 1_000_000;

/**
 * `lyceum seed --demo` empties the platform's tables and writes the demo
 * school again; `--scale N` writes it grown to N students. Arguments are
 * checked before any store is opened.
 */
export function seedCommand(args: string[]): (store: Store) => Promise<void> {
  const { values, positionals } = parseFlags(args, { demo: { type: 'boolean' }, scale: { type: 'string' } });
  if (positionals.length > 0 || Boolean(values.demo) === (values.scale !== undefined)) throw new UsageError(USAGE);
  if (values.scale !== undefined) {
    const students = /^\d{1,7}$/.test(values.scale) ? Number(values.scale) : NaN;
    if (!(students >= 30 && students <= MAX_SCALE)) throw new UsageError(USAGE);
    return async (store) => {
      const started = Date.now();
      const { seedLargeSchool } = await import('../demo/large-school.ts');
      const counts = await seedLargeSchool(store, students, Date.now(), (n) => process.stderr.write(`  ${n} students written\n`));
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      console.log(
        `seeded "${DEMO_SCHOOL_NAME}" at scale: ${counts.students} students, ${counts.courses} courses, ${counts.enrollments} enrollments, ${counts.lesson_completions} lesson completions, ${counts.orders} orders in ${seconds} s`,
      );
    };
  }
  return async (store) => {
    await clearPlatform(store);
    const counts = await seedDemo(store, Date.now());
    console.log(`seeded the demo school "${DEMO_SCHOOL_NAME}": ${describeCounts(counts)}`);
  };
}
