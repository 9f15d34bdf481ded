/**
 * Bounded growth of registered clients over real HTTP, once per store: the
 * cap on registrations (MAX_REGISTERED_CLIENTS), concurrent registrations
 * through two instances on one database, and the purge of clients that never
 * obtained a token (UNUSED_CLIENT_TTL_SECONDS), driven by the app's clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeOnce } from '../../src/cli/purge.ts';
import { readJson, type JsonResponse } from '../helpers/bearer.ts';
import { expectOAuthError, obtainTokens, registerClient, startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const CAP = 3;
const UNUSED_TTL_SECONDS = 3600;
const PURGE_INTERVAL_SECONDS = 600;

const register = (issuer: string): Promise<JsonResponse> =>
  fetch(`${issuer}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Growth test', redirect_uris: ['http://127.0.0.1/callback'] }),
  }).then(readJson);

describe.each(STORE_KINDS)('registered clients are bounded (%s)', (kind) => {
  let server: FlowServer;
  let second: TestServer;
  beforeAll(async () => {
    const env = { MAX_REGISTERED_CLIENTS: String(CAP), UNUSED_CLIENT_TTL_SECONDS: String(UNUSED_TTL_SECONDS), PURGE_INTERVAL_SECONDS: String(PURGE_INTERVAL_SECONDS) };
    server = await startFlowServer(kind, env);
    second = await startTestServer(kind, { ...env, DATABASE_URL: server.databaseUrl });
  });
  afterAll(async () => {
    await second.close();
    await server.stop();
  });

  it('lets exactly as many concurrent registrations through two instances pass as the cap allows; the rest get 429 too_many_requests with Retry-After', async () => {
    const issuers = [server.issuer, second.issuer];
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => register(issuers[i % 2]!)));
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 201, 429, 429, 429, 429, 429]);
    for (const r of results.filter((x) => x.status === 429)) {
      expectOAuthError(r, 429, 'too_many_requests');
      expect(r.json.error_description).toBe(`This server has reached its limit of ${CAP} registered clients (MAX_REGISTERED_CLIENTS); retry later, once unused ones are removed.`);
      expect(r.headers.get('retry-after')).toBe(String(PURGE_INTERVAL_SECONDS));
      expect(r.headers.get('cache-control')).toBe('no-store');
    }
    expect(await server.deps.store.clients.list()).toHaveLength(CAP);
  });

  it('purges the clients that never obtained a token once idle, keeps one that did, and registration opens again', async () => {
    // Start from an empty table: the clients of the test above are deleted.
    for (const c of await server.deps.store.clients.list()) await server.deps.store.clients.delete(c.id);
    const idle = await registerClient(server.issuer);
    const { flow } = await obtainTokens(server, { scope: 'courses:read' });
    const used = flow.clientId;
    expect((await server.deps.store.clients.find(used))?.lastUsedAt).toBeGreaterThan(0);
    expect((await server.deps.store.clients.find(idle.clientId))?.lastUsedAt).toBeNull();

    // Not idle long enough yet: nothing goes.
    server.advance(UNUSED_TTL_SECONDS * 1000 - 60_000);
    expect((await purgeOnce(server.deps.store, server.deps.config, server.deps.now())).clients).toBe(0);

    server.advance(120_000);
    expect((await purgeOnce(server.deps.store, server.deps.config, server.deps.now())).clients).toBe(1);
    expect(await server.deps.store.clients.find(idle.clientId)).toBeUndefined();
    expect(await server.deps.store.clients.find(used)).toMatchObject({ id: used });

    // The freed place is open to a new registration.
    expect((await register(server.issuer)).status).toBe(201);
  });
});
