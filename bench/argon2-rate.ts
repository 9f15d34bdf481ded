/**
 * What argon2id verification alone allows on this machine right now: the
 * rate of bench/argon2-baseline.ts, in a process of its own.
 */
import { join } from 'node:path';
import { runNode } from './processes.ts';

export interface Argon2Rate {
  concurrency: number;
  perSecond: number;
}

/** Verifications per second over `seconds`, `concurrency` in flight. */
export async function argon2Rate(seconds: number, concurrency: number): Promise<Argon2Rate> {
  const out = await runNode(['--import', 'tsx', join(import.meta.dirname, 'argon2-baseline.ts')], {
    ARGON2_SECONDS: String(seconds),
    ARGON2_CONCURRENCY: String(concurrency),
  });
  return JSON.parse(out.trim().split('\n').at(-1)!) as Argon2Rate;
}
