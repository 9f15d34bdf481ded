import type { Server } from 'node:http';
import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Readiness } from './health.ts';

export interface StopTimes {
  /** SHUTDOWN_DRAIN_MS: requests go on being served while /readyz answers 503. */
  drainMs: number;
  /** SHUTDOWN_GRACE_MS: after the listener closes, how long requests in flight get to finish. */
  graceMs: number;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Between the listener closing and the idle connections being closed: a
 * connection accepted just before the listener closed has its request on
 * the way; closing it as idle would reset it mid-request.
 */
const LINGER_MS = 250;

/** Stops accepting connections, leaving the open ones alone (http.Server.close also closes the idle ones). */
function stopListening(server: Server): void {
  net.Server.prototype.close.call(server);
}

/**
 * app.close(), bounded. Node's server.close() closes the idle connections
 * once, then waits for every other one to end: a request still running, or
 * a connection whose answer finished after that and is kept alive for
 * Fastify's keep-alive timeout (72 s by default). Such a connection is left
 * open, so that its client's next request is still served (with
 * `Connection: close`) rather than refused; past the grace period the
 * connections still open are closed with whatever they were doing, so the
 * process can exit.
 */
export async function closeWithin(app: FastifyInstance, graceMs: number): Promise<void> {
  const cut = setTimeout(() => {
    app.log.warn({ event: 'stop_grace_passed', grace_ms: graceMs }, 'requests still running after the grace period; closing their connections');
    app.server.closeAllConnections();
  }, graceMs);
  try {
    await app.close();
  } finally {
    clearTimeout(cut);
  }
}

/**
 * The clean stop (docs/deployment.md, "Stopping"): /readyz turns 503 at
 * once, and requests go on being served for the drain period, so a load
 * balancer probing /readyz stops sending any. Then the listener closes;
 * connections already open are served a little longer, each answer now
 * carrying `Connection: close` (stopping-connections.ts); `close` then
 * closes the idle ones and waits for the requests in flight, at most the
 * grace period (closeWithin).
 */
export async function stopGracefully(target: { app: FastifyInstance; readiness: Readiness; close(): Promise<void> }, { drainMs, graceMs }: StopTimes): Promise<void> {
  target.readiness.markStopping();
  target.app.log.info({ event: 'stopping', drain_ms: drainMs, grace_ms: graceMs }, 'stopping: /readyz answers 503; serving on while the load balancer notices');
  await pause(drainMs);
  stopListening(target.app.server);
  await pause(LINGER_MS);
  await target.close();
}
