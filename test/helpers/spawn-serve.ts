import { spawn, type ChildProcess } from 'node:child_process';

const ROOT = new URL('../..', import.meta.url).pathname;

export interface ServeProcess {
  child: ChildProcess;
  /** What it has written so far. */
  stdout(): string;
  stderr(): string;
  /** The port it listens on, as it announced it (PORT=0 lets the system pick one no other test can take meanwhile). */
  port(): number;
  /** SIGTERM, then its exit code once it has exited. */
  stop(): Promise<number | null>;
}

/**
 * `lyceum serve` (bin/lyceum.js) as a process of its own with `env` (PATH and
 * HOME added, and no drain on SIGTERM unless `env` sets SHUTDOWN_DRAIN_MS); resolves once it prints that it is serving, and throws with
 * its output if it exits or takes longer than `timeoutMs` first.
 */
export async function spawnServe(env: Record<string, string>, timeoutMs = 60_000): Promise<ServeProcess> {
  const child = spawn(process.execPath, ['bin/lyceum.js', 'serve'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', SHUTDOWN_DRAIN_MS: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const deadline = Date.now() + timeoutMs;
  while (!out.includes('Lyceum is serving')) {
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`lyceum serve did not start: ${out} ${err}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    port: () => Number(/listening on http:\/\/[^:]+:(\d+)/.exec(out)?.[1]),
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
