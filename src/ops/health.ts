import type { FastifyInstance, FastifySchema } from 'fastify';
import { z } from 'zod';
import { documented, ERROR_BODY } from '../http/routes/route-docs.ts';
import { declarePublicRoute } from '../http/routes/operation.ts';
import type { Store } from '../store/types.ts';

/**
 * The operations endpoints (docs/deployment.md, "Health checks" and
 * "Metrics"): declared once here, registered from here, named by the
 * OpenAPI document and the deployment doc. /metrics is never served on the
 * public port, only on the metrics listener (src/ops/metrics.ts).
 */
export const OPS_PATHS = {
  health: '/healthz',
  ready: '/readyz',
  metrics: '/metrics',
} as const;

/** Seconds a load balancer is asked to wait before it probes an instance that is not ready again. */
export const NOT_READY_RETRY_AFTER_SECONDS = 5;

/** Why an instance is not ready: a fixed reason for the response, the underlying error for the log only. */
export type NotReady = { reason: 'stopping' } | { reason: 'store_timeout' } | { reason: 'store_unreachable'; error: unknown };

/**
 * Whether this instance should get traffic: it is not stopping, and the
 * store answers a trivial query within `timeoutMs`. However many probes
 * arrive at once, one query at a time is in flight: concurrent checks share
 * it, and a query that hangs (a database behind a dropped network) is not
 * joined by more; each check still answers once its own bound is reached.
 */
export class Readiness {
  private stopping = false;
  private pending: Promise<void> | undefined;

  constructor(
    private readonly store: Pick<Store, 'ping'>,
    /** How long a check waits for the store's answer (READY_TIMEOUT_MS). */
    readonly timeoutMs: number,
  ) {}

  /** From now on every check answers "not ready": the instance is going away (SIGTERM). */
  markStopping(): void {
    this.stopping = true;
  }

  get isStopping(): boolean {
    return this.stopping;
  }

  /** undefined when ready. */
  async check(): Promise<NotReady | undefined> {
    if (this.stopping) return { reason: 'stopping' };
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(resolve, this.timeoutMs, 'timeout');
    });
    try {
      const outcome = await Promise.race([this.ping().then(() => 'answered' as const), timeout]);
      if (outcome === 'timeout') return { reason: 'store_timeout' };
      return this.stopping ? { reason: 'stopping' } : undefined;
    } catch (error) {
      return { reason: 'store_unreachable', error };
    } finally {
      clearTimeout(timer);
    }
  }

  private ping(): Promise<void> {
    this.pending ??= this.store.ping().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }
}

const NO_STORE = { 'cache-control': z.string().describe('no-store') };

const STATUS_BODY = (value: string, description: string) => documented(z.object({ status: z.literal(value) }), description, NO_STORE);

const HEALTH_SCHEMA: FastifySchema = {
  tags: ['operations'],
  summary: 'Liveness',
  description: 'Answers 200 while the process runs and serves requests; touches nothing else. Never rate limited, nothing personal in it.',
  response: { 200: STATUS_BODY('ok', 'The process is up') },
};

const readySchema = (timeoutMs: number): FastifySchema => ({
  tags: ['operations'],
  summary: 'Readiness',
  description: `Answers 200 when the database answers a trivial query within ${timeoutMs} ms (READY_TIMEOUT_MS) and the instance is not stopping; 503 otherwise, with Retry-After. Point load balancers here. Never rate limited, nothing personal in it.`,
  response: {
    200: STATUS_BODY('ready', 'The instance can serve requests'),
    503: documented(ERROR_BODY, 'temporarily_unavailable: the database cannot be reached or is too slow, or the instance is stopping', {
      'retry-after': z.int().describe('Seconds before probing again'),
      ...NO_STORE,
    }),
  },
});

const DESCRIPTIONS: Record<NotReady['reason'], (timeoutMs: number) => string> = {
  stopping: () => 'This instance is stopping; send requests to another one.',
  store_timeout: (ms) => `The database did not answer within ${ms} ms.`,
  store_unreachable: () => 'The database cannot be reached.',
};

const OK = JSON.stringify({ status: 'ok' });
const READY = JSON.stringify({ status: 'ready' });

/**
 * GET /healthz and GET /readyz on the public port: no rate limit, no
 * cookies, no store access but readiness's one query. A change of readiness
 * is logged once (a warning with the cause when it is lost, info when it is
 * back), not at every probe.
 */
export function registerHealthRoutes(app: FastifyInstance, readiness: Readiness): void {
  const { timeoutMs } = readiness;
  declarePublicRoute(app, { method: 'GET', path: OPS_PATHS.health, operationId: 'checkLiveness', schema: HEALTH_SCHEMA }, (_request, reply) => {
    reply.header('cache-control', 'no-store').type('application/json; charset=utf-8').send(OK);
  });

  let wasReady = true;
  // On the app's logger, not the request's: the probes' own level is raised with ACCESS_LOG (app.ts).
  declarePublicRoute(app, { method: 'GET', path: OPS_PATHS.ready, operationId: 'checkReadiness', schema: readySchema(timeoutMs) }, async (_request, reply) => {
    const notReady = await readiness.check();
    reply.header('cache-control', 'no-store').type('application/json; charset=utf-8');
    if (!notReady) {
      if (!wasReady) app.log.info({ event: 'ready' }, 'ready again: the database answers');
      wasReady = true;
      return reply.send(READY);
    }
    if (wasReady && notReady.reason !== 'stopping') {
      const err = notReady.reason === 'store_unreachable' ? notReady.error : undefined;
      app.log.warn({ event: 'not_ready', reason: notReady.reason, ...(err ? { err } : {}) }, 'not ready: the database does not answer');
    }
    wasReady = false;
    return reply
      .code(503)
      .header('retry-after', String(NOT_READY_RETRY_AFTER_SECONDS))
      .send(JSON.stringify({ error: 'temporarily_unavailable', error_description: DESCRIPTIONS[notReady.reason](timeoutMs) }));
  });
}
