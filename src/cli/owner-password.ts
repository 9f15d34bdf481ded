import { rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Config } from '../config/index.ts';
import { createPrivateFile } from '../util/private-files.ts';

/** Where the first-start password goes when no one is at a terminal: the data directory. */
export function ownerPasswordFile(database: Config['database']): string {
  // PostgreSQL has no data directory of Lyceum's: the directory `serve` was started in stands for it.
  return resolve(database.kind === 'sqlite' ? dirname(database.file) : '.', 'owner-password.txt');
}

/**
 * Hands the first-start owner password to the person starting Lyceum, never to the log stream a
 * deployment ships (passwords are never logged). At a terminal it is printed there; otherwise
 * (stdout piped into a log collector) it goes into `owner-password.txt`, mode 0600, and only the
 * file's path is printed.
 */
export function announceOwner(email: string, password: string, database: Config['database'], out: NodeJS.WriteStream = process.stdout): void {
  const change = `Change it with: npx lyceum users passwd --email ${email} --password NEW_PASSWORD\n`;
  if (out.isTTY) {
    out.write(`\nFirst start: created the school owner\n  email:    ${email}\n  password: ${password}\n${change}\n`);
    return;
  }
  const file = ownerPasswordFile(database);
  // A file left from an earlier database holds a password that no longer works.
  rmSync(file, { force: true });
  createPrivateFile(file, `email:    ${email}\npassword: ${password}\n${change}Delete this file once you have.\n`);
  out.write(`\nFirst start: created the school owner ${email}; the one-time password is in ${file} (readable by its owner only)\n${change}\n`);
}
