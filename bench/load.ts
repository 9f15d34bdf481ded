/**
 * One load run with autocannon: throughput, latency percentiles (from every
 * response, sub-millisecond), unexpected statuses and the server's RSS.
 */
import { createRequire } from 'node:module';
import { cpuMs, rssMb } from './processes.ts';

/** The parts of autocannon's request options the scenarios use. */
export interface LoadRequest {
  method?: 'GET' | 'POST';
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Called before each send with the connection's context; return a changed request, or null to restart the sequence. */
  setupRequest?: (req: LoadRequest, context: Record<string, unknown>) => LoadRequest | null;
  onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, string | string[]>) => void;
  /** The status this step must get; any 2xx when absent. */
  expectStatus?: number;
  /** Further check of the body; false counts as an error. */
  verify?: (body: string) => boolean;
}

interface AutocannonResult {
  errors: number;
  timeouts: number;
  duration: number;
}
interface Tracker {
  on(event: 'response', fn: (client: unknown, status: number, bytes: number, ms: number) => void): void;
  on(event: 'done', fn: (result: AutocannonResult) => void): void;
  on(event: 'error', fn: (err: Error) => void): void;
}
type Autocannon = ((opts: Record<string, unknown>) => Tracker) & { track?: unknown };
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export interface LoadOptions {
  origin: string;
  connections: number;
  /** Seconds measured. */
  duration: number;
  /** Seconds run first and thrown away. */
  warmup: number;
  requests: LoadRequest[];
  /** Server process whose RSS is sampled. */
  pid: number;
  /** Completed units of work (e.g. whole flows) so far; requests when absent. */
  completions?: () => number;
}

export interface LoadResult {
  /** Units per second: requests, or completions when the scenario counts them. */
  rate: number;
  requests: number;
  p50: number;
  p99: number;
  max: number;
  /** Transport errors, timeouts and responses with an unexpected status. */
  errors: number;
  /** First few unexpected statuses, for the report. */
  errorSamples: string[];
  rssPeak: number;
  rssEnd: number;
  seconds: number;
  /** Server CPU time (user + system) per unit, in ms: steadier than throughput on a busy machine. */
  cpuPerUnit: number;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function once(opts: LoadOptions, duration: number, record: boolean): Promise<LoadResult> {
  const latencies: number[] = [];
  let unexpected = 0;
  const errorSamples: string[] = [];
  const requests = opts.requests.map((r) => {
    const { expectStatus, onResponse, verify, ...rest } = r;
    return {
      ...rest,
      onResponse(status: number, body: string, context: Record<string, unknown>, headers: Record<string, string | string[]>) {
        const ok = (expectStatus === undefined ? status >= 200 && status < 300 : status === expectStatus) && (!verify || verify(body));
        if (!ok) {
          unexpected++;
          if (errorSamples.length < 5) errorSamples.push(`${r.method ?? 'GET'} ${r.path ?? '(dynamic)'} → ${status} ${body.slice(0, 160)}`);
          context.failed = true;
        }
        onResponse?.(status, body, context, headers);
      },
    };
  });
  const url = new URL(opts.origin);
  const before = opts.completions?.() ?? 0;
  let rssPeak = 0;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMb(opts.pid))), 200);
  const started = performance.now();
  const cpuBefore = cpuMs(opts.pid);
  return new Promise((resolve, reject) => {
    const tracker = autocannon({
      url: url.origin,
      connections: opts.connections,
      duration,
      requests,
      timeout: 30,
    });
    if (record) tracker.on('response', (_client, _status, _bytes, ms) => latencies.push(ms));
    tracker.on('error', reject);
    tracker.on('done', (result) => {
      clearInterval(sampler);
      const seconds = (performance.now() - started) / 1000;
      const sorted = Float64Array.from(latencies).sort();
      const rssEnd = rssMb(opts.pid);
      const units = opts.completions ? opts.completions() - before : latencies.length;
      const cpu = cpuMs(opts.pid) - cpuBefore;
      resolve({
        rate: units / seconds,
        requests: latencies.length,
        p50: percentile(sorted, 50),
        p99: percentile(sorted, 99),
        max: sorted.length ? sorted[sorted.length - 1]! : Number.NaN,
        errors: result.errors + result.timeouts + unexpected,
        errorSamples,
        rssPeak: Math.max(rssPeak, rssEnd),
        rssEnd,
        seconds,
        cpuPerUnit: units > 0 ? cpu / units : Number.NaN,
      });
    });
  });
}

/** Warm-up (discarded), then the measured run. */
export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  if (opts.warmup > 0) await once(opts, opts.warmup, false);
  return once(opts, opts.duration, true);
}
