import { parseArgs } from 'node:util';

/** A CLI mistake: printed as one line, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export function parseFlags<T extends Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
}
