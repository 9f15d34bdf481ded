/**
 * One load run with autocannon: throughput, latency percentiles from every
 * response, unexpected statuses, and the server's CPU time and peak RSS.
 */
import { createRequire } from 'node:module';
import { cpuMs, rssMb } from './servers.ts';

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

interface Tracker {
  on(event: 'response', fn: (client: unknown, status: number, bytes: number, ms: number) => void): void;
  on(event: 'done', fn: (result: { errors: number; timeouts: number }) => void): void;
  on(event: 'error', fn: (err: Error) => void): void;
}
const autocannon = createRequire(import.meta.url)('autocannon') as (opts: Record<string, unknown>) => Tracker;

export interface LoadOptions {
  origin: string;
  connections: number;
  /** Seconds measured, after `warmup` seconds run and thrown away. */
  duration: number;
  warmup: number;
  requests: LoadRequest[];
  /** The server process whose CPU time and RSS are read. */
  pid: number;
  /** Completed units of work (whole flows) so far; requests when absent. */
  completions?: () => number;
}

export interface LoadResult {
  /** Units per second: requests, or completions when the scenario counts them. */
  rate: number;
  requests: number;
  p50: number;
  p99: number;
  /** Transport errors, timeouts and responses with an unexpected status or body. */
  errors: number;
  errorSamples: string[];
  rssPeak: number;
  /** Server CPU time (user + system) per unit, in ms: steadier than throughput on a busy machine. */
  cpuPerUnit: number;
}

const percentile = (sorted: Float64Array, p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : Number.NaN);

/**
 * One autocannon run of warm-up plus measurement on the same connections:
 * connections opened while a server is saturated are accepted about one per
 * turn of its event loop, so a measurement that opened its own would time
 * that ramp instead of the server's steady state. Latencies are those of
 * requests sent after the warm-up; throughput and CPU count what completed
 * after it.
 */
export function runLoad(opts: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  let completed = 0;
  let unexpected = 0;
  const errorSamples: string[] = [];
  const requests = opts.requests.map(({ expectStatus, onResponse, verify, ...rest }) => ({
    ...rest,
    onResponse(status: number, body: string, context: Record<string, unknown>, headers: Record<string, string | string[]>) {
      const ok = (expectStatus === undefined ? status >= 200 && status < 300 : status === expectStatus) && (!verify || verify(body));
      if (!ok) {
        unexpected++;
        if (errorSamples.length < 5) errorSamples.push(`${rest.method ?? 'GET'} ${rest.path ?? '(dynamic)'} → ${status} ${body.slice(0, 160)}`);
        context.failed = true;
      }
      onResponse?.(status, body, context, headers);
    },
  }));
  let rssPeak = 0;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMb(opts.pid))), 200);
  const measuredFrom = performance.now() + opts.warmup * 1000;
  let before = opts.completions?.() ?? 0;
  let cpuBefore = cpuMs(opts.pid);
  const warmedUp = setTimeout(() => {
    before = opts.completions?.() ?? 0;
    cpuBefore = cpuMs(opts.pid);
  }, opts.warmup * 1000);
  return new Promise((resolve, reject) => {
    // sampleInt: autocannon stops at its first sample after `duration`, 1 s apart by default.
    const tracker = autocannon({ url: new URL(opts.origin).origin, connections: opts.connections, duration: opts.warmup + opts.duration, requests, timeout: 30, sampleInt: 100 });
    tracker.on('response', (_client, _status, _bytes, ms) => {
      const now = performance.now();
      if (now < measuredFrom) return;
      completed++;
      if (now - ms >= measuredFrom) latencies.push(ms);
    });
    tracker.on('error', reject);
    tracker.on('done', (result) => {
      clearInterval(sampler);
      clearTimeout(warmedUp);
      const seconds = (performance.now() - measuredFrom) / 1000;
      const sorted = Float64Array.from(latencies).sort();
      const units = opts.completions ? opts.completions() - before : completed;
      resolve({
        rate: units / seconds,
        requests: latencies.length,
        p50: percentile(sorted, 50),
        p99: percentile(sorted, 99),
        errors: result.errors + result.timeouts + unexpected,
        errorSamples,
        rssPeak: Math.max(rssPeak, rssMb(opts.pid)),
        cpuPerUnit: units > 0 ? (cpuMs(opts.pid) - cpuBefore) / units : Number.NaN,
      });
    });
  });
}
