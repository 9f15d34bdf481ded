/**
 * Prometheus metrics over real HTTP: off by default (no listener, and
 * /metrics on the public port is a 404), and with METRICS_PORT a listener of
 * their own that exports request counts by route pattern, tokens issued by
 * a real code flow, token errors and rate-limit hits. Labels never hold
 * what the URL or the request carried.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJson } from '../helpers/bearer.ts';
import { expectOAuthError, exchangeCode, obtainTokens, refreshTokens, startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { postForm, register } from '../helpers/oauth.ts';
import { freePort, startTestServer, type TestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

async function scrape(server: { metricsUrl?: string }): Promise<string> {
  expect(server.metricsUrl, 'the metrics listener runs').toBeDefined();
  const res = await fetch(`${server.metricsUrl}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
}

/** The value of one sample, e.g. sample(text, 'lyceum_http_requests_total', {route: '/healthz', ...}); undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)\{(.*)\} (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = m[2]!.split(/,(?=[a-zA-Z_]\w*=")/);
    if (wanted.every((w) => have.includes(w)) && have.length === wanted.length) return Number(m[3]);
  }
  return undefined;
}

const requests = (text: string, method: string, route: string, status: number) => sample(text, 'lyceum_http_requests_total', { method, route, status: String(status) });

describe.each(STORE_KINDS)('metrics are off by default (%s)', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  it('no metrics listener, and /metrics on the public port is the JSON 404', async () => {
    expect(server.metricsUrl).toBeUndefined();
    expect(server.deps.config.metrics.port).toBe(0);
    const res = await fetch(`${server.issuer}/metrics`).then(readJson);
    expect(res.status).toBe(404);
    expect(res.json.error).toBe('not_found');
  });
});

describe.each(STORE_KINDS)('metrics with METRICS_PORT (%s)', (kind) => {
  let server: FlowServer;
  let metricsPort: number;
  beforeAll(async () => {
    metricsPort = await freePort();
    server = await startFlowServer(kind, { METRICS_PORT: String(metricsPort), RATE_LIMIT_REGISTER_PER_MINUTE: '2' });
  });
  afterAll(() => server.stop());

  it('listen on METRICS_HOST:METRICS_PORT (127.0.0.1 by default), never on the public port', async () => {
    expect(server.metricsUrl).toBe(`http://127.0.0.1:${metricsPort}`);
    expect((await fetch(`${server.issuer}/metrics`)).status).toBe(404);
    // The metrics listener serves /metrics and nothing else.
    for (const path of ['/', '/healthz', '/api/v1/courses', '/metrics/x']) {
      const res = await fetch(`${server.metricsUrl}${path}`);
      await res.arrayBuffer();
      expect(res.status, path).toBe(404);
    }
    expect((await fetch(`${server.metricsUrl}/metrics`, { method: 'POST' })).status).toBe(404);
    const head = await fetch(`${server.metricsUrl}/metrics`, { method: 'HEAD' });
    expect(head.status).toBe(200);
  });

  it('export prom-client’s process metrics', async () => {
    const text = await scrape(server);
    for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes']) {
      expect(text, name).toMatch(new RegExp(`^${name} `, 'm'));
    }
  });

  it('count requests and time them by method, route pattern and status, never by the URL itself', async () => {
    const before = await scrape(server);
    expect((await fetch(`${server.issuer}/healthz`)).status).toBe(200);
    const id = `rec-${Math.random().toString(36).slice(2)}`;
    const record = await fetch(`${server.issuer}/api/v1/courses/${id}?access_token=secret-${id}`);
    await record.arrayBuffer();
    const missing = await fetch(`${server.issuer}/no/such/${id}`);
    await missing.arrayBuffer();
    expect(missing.status).toBe(404);

    const after = await scrape(server);
    expect(requests(after, 'GET', '/healthz', 200)).toBe((requests(before, 'GET', '/healthz', 200) ?? 0) + 1);
    expect(requests(after, 'GET', '/api/v1/courses/:id', record.status)).toBeGreaterThanOrEqual(1);
    expect(requests(after, 'GET', 'unmatched', 404)).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'lyceum_http_request_duration_seconds_count', { method: 'GET', route: '/healthz', status: '200' })).toBe(requests(after, 'GET', '/healthz', 200));
    expect(sample(after, 'lyceum_http_request_duration_seconds_bucket', { le: '+Inf', method: 'GET', route: '/healthz', status: '200' })).toBe(requests(after, 'GET', '/healthz', 200));
    expect(after, 'ids, paths and tokens from the URL are never labels').not.toContain(id);
  });

  it('count tokens issued by grant type after a real code flow and a refresh, and token errors by code', async () => {
    const before = await scrape(server);
    const issued = (text: string, grant: string) => sample(text, 'lyceum_oauth_tokens_issued_total', { grant_type: grant }) ?? 0;
    const errors = (text: string, error: string) => sample(text, 'lyceum_oauth_token_errors_total', { error }) ?? 0;

    const { flow, tokens } = await obtainTokens(server);
    await refreshTokens(server, flow, tokens.refresh_token!);
    // The same code again: invalid_grant. An unknown grant type: unsupported_grant_type.
    expectOAuthError(await exchangeCode(server, flow), 400, 'invalid_grant');
    expectOAuthError(await postForm(server.tokenEndpoint, { grant_type: 'password', client_id: flow.clientId }), 400, 'unsupported_grant_type');

    const after = await scrape(server);
    expect(issued(after, 'authorization_code')).toBe(issued(before, 'authorization_code') + 1);
    expect(issued(after, 'refresh_token')).toBe(issued(before, 'refresh_token') + 1);
    expect(errors(after, 'invalid_grant')).toBe(errors(before, 'invalid_grant') + 1);
    expect(errors(after, 'unsupported_grant_type')).toBe(errors(before, 'unsupported_grant_type') + 1);
    expect(after, 'only Lyceum’s own grant types are labels').not.toMatch(/grant_type="password"/);
    expect(requests(after, 'POST', '/api/oauth/token', 200)).toBeGreaterThanOrEqual(2);
    expect(after, 'no client id, code or token in any label').not.toContain(flow.clientId);
    expect(after).not.toContain(tokens.access_token);
  });

  it('count rate-limit hits by route after a 429', async () => {
    const body = { client_name: 'Limit probe', redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none' };
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await register(server.issuer, body)).status);
    expect(statuses).toContain(429);
    const refused = statuses.filter((s) => s === 429).length;
    const text = await scrape(server);
    expect(sample(text, 'lyceum_rate_limited_requests_total', { route: '/api/oauth/register' })).toBe(refused);
    expect(requests(text, 'POST', '/api/oauth/register', 429)).toBe(refused);
  });
});

describe.each(STORE_KINDS)('the metrics listener’s lifecycle (%s)', (kind) => {
  it('each server counts its own requests, and close() stops its listener', async () => {
    const [a, b] = await Promise.all([
      freePort().then((port) => startTestServer(kind, { METRICS_PORT: String(port) })),
      freePort().then((port) => startTestServer(kind, { METRICS_PORT: String(port) })),
    ]);
    try {
      for (let i = 0; i < 3; i++) await (await fetch(`${a.issuer}/healthz`)).arrayBuffer();
      expect(requests(await scrape(a), 'GET', '/healthz', 200)).toBe(3);
      expect(requests(await scrape(b), 'GET', '/healthz', 200)).toBeUndefined();
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
    await expect(fetch(`${a.metricsUrl}/metrics`)).rejects.toThrow();
  });

  it('a METRICS_PORT already taken stops the start (EADDRINUSE)', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      await expect(startTestServer(kind, { METRICS_PORT: String(port) })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });
});
