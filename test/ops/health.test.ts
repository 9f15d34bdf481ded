/**
 * GET /healthz and GET /readyz over real HTTP on both stores: liveness
 * touches nothing, readiness answers 200 only while the store answers a
 * trivial query within READY_TIMEOUT_MS, and 503 with Retry-After when the
 * store is gone, too slow, or the instance is stopping. Neither is rate
 * limited.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJson } from '../helpers/bearer.ts';
import { register } from '../helpers/oauth.ts';
import { freshPostgresDatabase } from '../helpers/postgres-database.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { freshDatabaseUrl, STORE_KINDS } from '../helpers/stores.ts';

const get = (url: string) => fetch(url).then(readJson);

function expectNotReady(res: Awaited<ReturnType<typeof get>>, description: RegExp): void {
  expect(res.status, res.text).toBe(503);
  expect(res.headers.get('retry-after')).toBe('5');
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.json).toEqual({ error: 'temporarily_unavailable', error_description: expect.stringMatching(description) });
}

describe.each(STORE_KINDS)('health checks (%s)', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    // Limits as low as they go: were the checks limited, the second request would be refused.
    server = await startTestServer(kind, { RATE_LIMIT_REGISTER_PER_MINUTE: '1', RATE_LIMIT_SIGN_IN_PER_MINUTE: '1', RATE_LIMIT_MCP_PER_MINUTE: '1' });
  });
  afterAll(() => server.close());

  it('GET /healthz answers 200 {"status":"ok"}, not cached', async () => {
    const res = await get(`${server.issuer}/healthz`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ status: 'ok' });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('set-cookie')).toBeNull();
  });

  it('GET /readyz answers 200 {"status":"ready"} while the store answers, not cached', async () => {
    const res = await get(`${server.issuer}/readyz`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ status: 'ready' });
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('retry-after')).toBeNull();
  });

  it('HEAD works on both, as some load balancers probe with it', async () => {
    for (const path of ['/healthz', '/readyz']) {
      const res = await fetch(`${server.issuer}${path}`, { method: 'HEAD' });
      expect(res.status, path).toBe(200);
    }
  });

  it('neither is rate limited: 100 requests each under a limit of 1 a minute are all 200', async () => {
    // The limit is in force: a second registration from this address is refused.
    const body = { client_name: 'Limit probe', redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none' };
    expect((await register(server.issuer, body)).status).toBe(201);
    expect((await register(server.issuer, body)).status).toBe(429);
    for (const path of ['/healthz', '/readyz']) {
      const answers = await Promise.all(Array.from({ length: 100 }, () => fetch(`${server.issuer}${path}`).then(async (r) => (await r.arrayBuffer(), r))));
      expect(
        answers.map((r) => r.status),
        path,
      ).toEqual(Array(100).fill(200));
      expect(answers[99]!.headers.get('x-ratelimit-limit'), path).toBeNull();
      expect(answers[99]!.headers.get('ratelimit-policy'), path).toBeNull();
    }
  });

  it('appear in /openapi.json as public operations (no security requirement)', async () => {
    const doc = (await get(`${server.issuer}/openapi.json`)).json as { paths: Record<string, Record<string, { tags: string[]; security: unknown[]; responses: Record<string, unknown> }>> };
    for (const path of ['/healthz', '/readyz']) {
      const op = doc.paths[path]?.get;
      expect(op, path).toBeDefined();
      expect(op!.tags).toEqual(['operations']);
      expect(op!.security).toEqual([]);
    }
    expect(doc.paths['/readyz']!.get!.responses).toHaveProperty('503');
    expect(doc.paths['/metrics'], 'metrics are never on the public port').toBeUndefined();
  });
});

describe.each(STORE_KINDS)('readiness when the store is gone (%s)', (kind) => {
  it('closing the store turns /readyz to 503 with Retry-After; /healthz stays 200', async () => {
    const server = await startTestServer(kind);
    try {
      expect((await get(`${server.issuer}/readyz`)).status).toBe(200);
      await server.deps.store.close();
      expectNotReady(await get(`${server.issuer}/readyz`), /^The database cannot be reached\.$/);
      expect((await get(`${server.issuer}/healthz`)).status).toBe(200);
    } finally {
      await server.app.close();
    }
  });
});

describe.runIf(STORE_KINDS.includes('postgres'))('readiness of a PostgreSQL instance', () => {
  it('a database dropped under the server: 503, the cause in the log only', async () => {
    const db = await freshPostgresDatabase();
    const server = await startTestServer('postgres', { DATABASE_URL: db.url });
    try {
      expect((await get(`${server.issuer}/readyz`)).status).toBe(200);
      await db.drop();
      const res = await get(`${server.issuer}/readyz`);
      expectNotReady(res, /^The database cannot be reached\.$/);
      expect(res.text, 'no database name or driver message in the body').not.toMatch(/lyceum_t_|does not exist|terminat/);
    } finally {
      await server.close();
      await db.drop();
    }
  });

  it('a database that stops answering: 503 within READY_TIMEOUT_MS, and 200 again once it answers', async () => {
    const target = new URL(await freshDatabaseUrl('postgres'));
    const proxy = await stallableProxy(target.hostname, Number(target.port || 5432));
    target.port = String(proxy.port);
    target.hostname = '127.0.0.1';
    const server = await startTestServer('postgres', { DATABASE_URL: target.href, READY_TIMEOUT_MS: '200' });
    try {
      expect((await get(`${server.issuer}/readyz`)).status).toBe(200);
      proxy.stall();
      const started = Date.now();
      // Concurrent probes share the one query in flight and each answers at its own bound.
      const answers = await Promise.all([1, 2, 3].map(() => get(`${server.issuer}/readyz`)));
      const elapsed = Date.now() - started;
      for (const res of answers) expectNotReady(res, /^The database did not answer within 200 ms\.$/);
      expect(elapsed).toBeGreaterThanOrEqual(190);
      expect(elapsed).toBeLessThan(2000);
      expect((await get(`${server.issuer}/healthz`)).status).toBe(200);
      proxy.resume();
      await expect.poll(async () => (await get(`${server.issuer}/readyz`)).status, { timeout: 5000 }).toBe(200);
    } finally {
      proxy.resume();
      await server.close();
      await proxy.close();
    }
  });
});

describe.each(STORE_KINDS)('readiness while stopping (%s)', (kind) => {
  it('markStopping() turns /readyz to 503 at once; /healthz stays 200', async () => {
    const server = await startTestServer(kind);
    try {
      expect((await get(`${server.issuer}/readyz`)).status).toBe(200);
      server.readiness.markStopping();
      expectNotReady(await get(`${server.issuer}/readyz`), /^This instance is stopping; send requests to another one\.$/);
      expect((await get(`${server.issuer}/healthz`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('close() marks the instance as stopping before it stops listening', async () => {
    const server = await startTestServer(kind);
    expect(server.readiness.isStopping).toBe(false);
    const closing = server.close();
    expect(server.readiness.isStopping).toBe(true);
    await closing;
  });
});

/** A TCP proxy to PostgreSQL that can stop forwarding (a network that drops everything) and start again. */
async function stallableProxy(host: string, port: number): Promise<{ port: number; stall(): void; resume(): void; close(): Promise<void> }> {
  let stalled = false;
  const held: (() => void)[] = [];
  const sockets = new Set<Socket>();
  const forward = (from: Socket, to: Socket) =>
    from.on('data', (chunk) => {
      if (stalled) held.push(() => to.write(chunk));
      else to.write(chunk);
    });
  const server: Server = createServer((client) => {
    const upstream = connect(port, host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => {
        sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    stall: () => {
      stalled = true;
    },
    resume: () => {
      stalled = false;
      for (const write of held.splice(0)) write();
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
