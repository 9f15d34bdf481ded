/**
 * Child processes the bench measures: spawn, wait for the first 200, read
 * their resident memory, stop them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';


const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Servers still running: killed if the bench exits early, so none outlives it. */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** Resident set size of a process in MB, from /proc (0 once it has exited). */
export function rssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
    return kb ? Number(kb) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** CPU time (user + system) a process has used so far, in ms, from /proc (0 once it has exited). */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the line, in clock ticks (100 per second on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}

export interface Spawned {
  pid: number;
  url: string;
  /** Milliseconds from spawn to the first 200 answer. */
  startupMs: number;
  logFile: string;
  rss(): number;
  stop(): Promise<void>;
}

/** Polls `url` until it answers 200; throws when the process exits first or the timeout passes. */
async function waitFor200(url: string, child: ChildProcess, timeoutMs: number, logFile: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the process exited (${child.exitCode}) before answering; see ${logFile}:\n${tail(logFile)}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error(`no 200 from ${url} within ${timeoutMs} ms; see ${logFile}:\n${tail(logFile)}`);
    await sleep(5);
  }
}

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-20).join('\n');
  } catch {
    return '';
  }
}

/**
 * Starts `node args...` with `env` added, stdout and stderr appended to
 * logFile, and waits until GET origin+readyPath answers 200.
 */
export async function spawnServer(opts: {
  args: string[];
  env: Record<string, string>;
  port: number;
  readyPath: string;
  logFile: string;
  timeoutMs?: number;
}): Promise<Spawned> {
  const out = openSync(opts.logFile, 'a');
  const started = performance.now();
  const child = spawn(process.execPath, opts.args, {
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', out, out],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  const url = `http://127.0.0.1:${opts.port}`;
  try {
    await waitFor200(url + opts.readyPath, child, opts.timeoutMs ?? 30_000, opts.logFile);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  const startupMs = performance.now() - started;
  const pid = child.pid!;
  return {
    pid,
    url,
    startupMs,
    logFile: opts.logFile,
    rss: () => rssMb(pid),
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Runs `node args...` to completion; throws with its output when it fails. */
export async function runNode(args: string[], env: Record<string, string>): Promise<string> {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`node ${args.join(' ')} failed (${code}):\n${output}`);
  return output;
}
