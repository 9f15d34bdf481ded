/**
 * Another process holding SQLite's write lock, as the CLI, a backup or a
 * `sqlite3` shell in BEGIN IMMEDIATE would: for tests of what the server
 * does while it cannot write.
 */
import { spawn, type ChildProcess } from 'node:child_process';

const ROOT = new URL('../..', import.meta.url).pathname;

/** A second process that holds BEGIN IMMEDIATE on `file` for `ms`; resolves once it holds it. */
export async function holdLockInAnotherProcess(file: string, ms: number): Promise<{ child: ChildProcess; released: Promise<void> }> {
  const script = `
    const Database = require('better-sqlite3');
    const db = new Database(process.argv[1]);
    db.exec('BEGIN IMMEDIATE');
    process.stdout.write('locked\\n');
    setTimeout(() => { db.exec('ROLLBACK'); db.close(); process.stdout.write('released\\n'); }, Number(process.argv[2]));
  `;
  const child = spawn(process.execPath, ['-e', script, file, String(ms)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const released = new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => (code === 0 && out.includes('released') ? resolve() : reject(new Error(`lock holder exited ${code}: ${out}`))));
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('locked')) resolve();
    });
    child.once('exit', () => reject(new Error(`lock holder never locked: ${out}`)));
  });
  return { child, released };
}
