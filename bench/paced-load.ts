/**
 * An open-loop load at a steady rate: one request every 1/rate seconds,
 * whatever the previous ones are doing, over keep-alive connections. Used for
 * latency when the server is not saturated. autocannon's rate limits cannot
 * do this: each connection sends its whole per-second quota back to back at
 * the start of every second, so its "paced" latencies are queueing behind
 * those bursts.
 */
import { Agent, request } from 'node:http';
import { cpuMs, rssMb } from './processes.ts';
import type { LoadRequest, LoadResult } from './load.ts';

export interface PacedOptions {
  origin: string;
  /** Requests per second. */
  rate: number;
  /** Most requests in flight at once (sockets of the keep-alive agent). */
  connections: number;
  /** Seconds measured, after `warmup` seconds thrown away. */
  duration: number;
  warmup: number;
  /** One fixed request (no sequences): the read scenarios. */
  request: LoadRequest;
  pid: number;
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : Number.NaN;
}

export async function runPaced(opts: PacedOptions): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: opts.connections });
  const url = new URL(opts.request.path ?? '/', opts.origin);
  const latencies: number[] = [];
  const errorSamples: string[] = [];
  let errors = 0;
  let rssPeak = 0;
  const send = (record: boolean) =>
    new Promise<void>((resolve) => {
      const started = performance.now();
      const req = request(url, { method: opts.request.method ?? 'GET', headers: opts.request.headers, agent }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          const ok = opts.request.expectStatus === undefined ? status >= 200 && status < 300 : status === opts.request.expectStatus;
          if (record) {
            latencies.push(performance.now() - started);
            if (!ok) {
              errors++;
              if (errorSamples.length < 5) errorSamples.push(`${url.pathname} → ${status} ${body.slice(0, 160)}`);
            }
          }
          resolve();
        });
      });
      req.on('error', (err) => {
        if (record) {
          errors++;
          if (errorSamples.length < 5) errorSamples.push(`${url.pathname} → ${err.message}`);
        }
        resolve();
      });
      req.end(opts.request.body);
    });

  const phase = async (seconds: number, record: boolean) => {
    const interval = 1000 / opts.rate;
    const start = performance.now();
    const pending: Promise<void>[] = [];
    let sent = 0;
    while (performance.now() - start < seconds * 1000) {
      // Catch up with the schedule: every request due by now goes out, however late the timer fired.
      const due = Math.floor((performance.now() - start) / interval) + 1;
      while (sent < due) {
        pending.push(send(record));
        sent++;
      }
      await new Promise((r) => setTimeout(r, Math.max(0, start + sent * interval - performance.now())));
    }
    await Promise.all(pending);
    return (performance.now() - start) / 1000;
  };

  if (opts.warmup > 0) await phase(opts.warmup, false);
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMb(opts.pid))), 200);
  const cpuBefore = cpuMs(opts.pid);
  const seconds = await phase(opts.duration, true);
  const cpu = cpuMs(opts.pid) - cpuBefore;
  clearInterval(sampler);
  agent.destroy();
  const sorted = Float64Array.from(latencies).sort();
  const rssEnd = rssMb(opts.pid);
  return {
    rate: latencies.length / seconds,
    requests: latencies.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.length ? sorted[sorted.length - 1]! : Number.NaN,
    errors,
    errorSamples,
    rssPeak: Math.max(rssPeak, rssEnd),
    rssEnd,
    seconds,
    cpuPerUnit: latencies.length ? cpu / latencies.length : Number.NaN,
  };
}
