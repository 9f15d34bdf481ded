/**
 * Real client programs run as child processes with a deadline: a run that
 * outlives it is killed, and every process still running can be killed at
 * the end of a test file.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';

const running = new Set<ChildProcess>();

export interface RunResult {
  /** The exit code; null when the process was killed. */
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** Runs a program to its end, or kills it after `timeoutMs`; never rejects for a non-zero exit. */
export function runBounded(command: string, args: string[], opts: { env: Record<string, string>; timeoutMs: number; cwd?: string }): Promise<RunResult> {
  const child = spawn(command, args, { env: opts.env, cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, opts.timeoutMs);
  return new Promise((resolve, reject) => {
    child.once('error', (e) => {
      clearTimeout(timer);
      running.delete(child);
      reject(e);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      running.delete(child);
      resolve({ code, stdout, stderr, timedOut });
    });
  });
}

/** Starts a long-lived program; the caller stops it, or killAllStarted() does. */
export function startTracked(command: string, args: string[], opts: { env: Record<string, string>; cwd?: string }): ChildProcess {
  const child = spawn(command, args, { env: opts.env, cwd: opts.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

/** Kills every process started here that is still running, and waits for each to exit (at most `graceMs`). */
export async function killAllStarted(graceMs = 5_000): Promise<void> {
  await Promise.all(
    [...running].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const timer = setTimeout(resolve, graceMs);
          child.once('exit', () => {
            clearTimeout(timer);
            resolve();
          });
          child.kill('SIGKILL');
        }),
    ),
  );
  running.clear();
}

const atLeast = (version: string, min: [number, number]) => {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  return major > min[0] || (major === min[0] && minor >= min[1]);
};

/**
 * A Node.js binary of at least `min` (major, minor): this one when it is
 * recent enough, else one of `fallbackMajor` from the npm registry through
 * npx, as scripts/other-node-versions.sh gets its Node.js versions.
 */
export async function nodeAtLeast(min: [number, number], fallbackMajor: number, timeoutMs = 120_000): Promise<string> {
  if (atLeast(process.version, min)) return process.execPath;
  const { stdout } = await promisify(execFile)('npx', ['-y', '-p', `node@${fallbackMajor}`, 'node', '-e', 'process.stdout.write(process.execPath + " " + process.version)'], {
    timeout: timeoutMs,
  });
  const [path, version] = stdout.trim().split(' ');
  if (!path || !version || !atLeast(version, min)) throw new Error(`npx gave no Node.js ${min.join('.')} or later: ${stdout}`);
  return path;
}
