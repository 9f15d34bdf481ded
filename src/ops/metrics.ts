import { createServer, type Server } from 'node:http';
import { paramOf } from '../http/requests/params.ts';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { toHttpError } from '../http/errors/error-handler.ts';
import { ENDPOINTS } from '../oauth/endpoints.ts';
import { GRANT_HANDLERS } from '../oauth/token-endpoint/route.ts';
import { OPS_PATHS } from './health.ts';

/** The route label of a request no route matched (404s, malformed URLs). */
const UNMATCHED = 'unmatched';

const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Prometheus metrics (prom-client), in a registry of this app's own rather
 * than prom-client's global one, so that several apps in one process (the
 * tests) never share or collide on a metric. Loaded only when METRICS_PORT
 * is set: a server without metrics neither loads prom-client nor runs a hook
 * for it.
 *
 * Labels are bounded and carry nothing secret or personal: the route is
 * Fastify's route pattern (`/api/v1/courses/:id`), never the URL with its
 * ids, query or tokens; grant types and error codes are Lyceum's own fixed
 * sets; no client id, user, address or token.
 */
export class AppMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly duration: Histogram<'method' | 'route' | 'status'>;
  private readonly tokensIssued: Counter<'grant_type'>;
  private readonly tokenErrors: Counter<'error'>;
  private readonly rateLimitedRequests: Counter<'route'>;
  private listener: Server | undefined;

  constructor() {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.requests = new Counter({
      name: 'lyceum_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status code.',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.duration = new Histogram({
      name: 'lyceum_http_request_duration_seconds',
      help: 'Time from receiving a request to the end of its response, by method, route pattern and status code.',
      labelNames: ['method', 'route', 'status'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.tokensIssued = new Counter({
      name: 'lyceum_oauth_tokens_issued_total',
      help: 'Successful token endpoint responses, by grant type.',
      labelNames: ['grant_type'],
      registers,
    });
    this.tokenErrors = new Counter({
      name: 'lyceum_oauth_token_errors_total',
      help: 'Token endpoint requests refused or failed, by OAuth error code.',
      labelNames: ['error'],
      registers,
    });
    this.rateLimitedRequests = new Counter({
      name: 'lyceum_rate_limited_requests_total',
      help: 'Requests refused by a per-minute rate limit (429), by route pattern.',
      labelNames: ['route'],
      registers,
    });
    // Each token outcome starts at 0, so a rate() has a series to work on before the first request.
    for (const { grantType } of GRANT_HANDLERS) this.tokensIssued.labels(grantType).inc(0);
  }

  /** The rate-limit plugin's onExceeded: a request refused for going over a route's limit. */
  readonly rateLimited = (request: FastifyRequest): void => {
    this.rateLimitedRequests.labels(request.routeOptions.url ?? UNMATCHED).inc();
  };

  /** Counts and times every response, and the token endpoint's outcomes (`fault` as the error handler applies it). */
  instrument(app: FastifyInstance, fault: (err: unknown) => unknown): void {
    const grantTypes = new Set<string>(GRANT_HANDLERS.map((h) => h.grantType));
    const isTokenRequest = (request: FastifyRequest) => request.method === 'POST' && request.routeOptions.url === ENDPOINTS.token;

    app.addHook('onResponse', async (request, reply) => {
      const route = request.routeOptions.url ?? UNMATCHED;
      const status = String(reply.statusCode);
      this.requests.labels(request.method, route, status).inc();
      this.duration.labels(request.method, route, status).observe(reply.elapsedTime / 1000);
      if (reply.statusCode === 200 && isTokenRequest(request)) {
        const grantType = paramOf(request.body, 'grant_type');
        if (typeof grantType === 'string' && grantTypes.has(grantType)) this.tokensIssued.labels(grantType).inc();
      }
    });
    // Every refusal of the token endpoint passes here on its way to the error handler, which maps it the same way.
    app.addHook('onError', async (request, _reply, error) => {
      if (isTokenRequest(request)) this.tokenErrors.labels(toHttpError(fault(error)).code).inc();
    });
  }

  /** Starts the metrics listener: GET /metrics and nothing else. Resolves with its URL. */
  async listen(host: string, port: number): Promise<string> {
    const server = createServer((req, res) => {
      const path = (req.url ?? '').split('?')[0];
      if (path !== OPS_PATHS.metrics || (req.method !== 'GET' && req.method !== 'HEAD')) {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end(`Not found: metrics are at GET ${OPS_PATHS.metrics}\n`);
        return;
      }
      this.registry.metrics().then(
        (text) => {
          res.writeHead(200, { 'content-type': this.registry.contentType, 'cache-control': 'no-store' });
          res.end(req.method === 'HEAD' ? undefined : text);
        },
        () => {
          res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('Metrics could not be collected\n');
        },
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.listener = server;
    const address = server.address() as AddressInfo;
    const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return `http://${hostPart}:${address.port}`;
  }

  /** Stops the listener (a scraper's keep-alive connection included). */
  async close(): Promise<void> {
    const server = this.listener;
    this.listener = undefined;
    if (!server) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }
}
