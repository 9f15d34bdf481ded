import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The data directory and the files in it hold the school's data and secrets:
 * what Lyceum creates there is readable by its owner only (0700 directories,
 * 0600 files). An existing directory or file keeps the mode its operator gave it.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Creates the directory a file goes in (and its missing parents), owner-only. */
export function ensurePrivateDirFor(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE });
}

/**
 * Creates `file` with `content`, mode 0600 from its first byte (never a chmod after the
 * write). Returns false when the file already exists: it is left untouched.
 */
export function createPrivateFile(file: string, content: string): boolean {
  ensurePrivateDirFor(file);
  try {
    writeFileSync(file, content, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}
