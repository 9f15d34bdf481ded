/**
 * Per-IP rate limits on client registration and the sign-in form: 429 with
 * the API's JSON error (an HTML page for the sign-in form), 0 turns a limit
 * off, counters are per process without REDIS_URL and shared by every
 * instance with it. The Redis part needs a Redis server (TEST_REDIS_URL,
 * redis://127.0.0.1:6379 by default) and is skipped with a note without one.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { register } from '../helpers/oauth.ts';
import { registerDeviceClient, requestDeviceAuthorization } from '../helpers/device.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { parseForms, UserAgent } from '../helpers/user-agent.ts';

const REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';

async function redisReachable(url: string): Promise<boolean> {
  const probe = new Redis(url, { lazyConnect: true, connectTimeout: 500, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => {});
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

const HAVE_REDIS = await redisReachable(REDIS_URL);
if (!HAVE_REDIS) console.warn(`\n[lyceum tests] no Redis at ${REDIS_URL}: the shared rate-limit tests are SKIPPED (set TEST_REDIS_URL).\n`);

const CLIENT = { client_name: 'Rate test', redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none' };

const servers: TestServer[] = [];
async function start(env: Record<string, string>): Promise<TestServer> {
  const server = await startTestServer('sqlite', env);
  servers.push(server);
  return server;
}

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function registrations(server: TestServer, n: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) statuses.push((await register(server.url, CLIENT)).status);
  return statuses;
}

/** One sign-in form submission with a wrong password. */
async function failedSignIn(server: TestServer): Promise<Response> {
  const agent = new UserAgent(server.url);
  const page = await agent.navigate('/oauth/sign-in');
  if ('redirect' in page) throw new Error('unexpected redirect');
  const form = parseForms(page.html).find((f) => f.action === '/oauth/sign-in')!;
  return agent.request('/oauth/sign-in', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...form.fields, email: 'nobody@school.test', password: 'wrong-password' }).toString(),
  });
}

describe('rate limits, one instance', () => {
  it('device authorizations over the limit get 429 too_many_requests as JSON, with Retry-After', async () => {
    const server = await start({ RATE_LIMIT_DEVICE_PER_MINUTE: '2' });
    const client = await registerDeviceClient(server.url);
    const statuses: number[] = [];
    for (let i = 0; i < 2; i++) statuses.push((await requestDeviceAuthorization(server.url, client, { scope: 'courses:read' })).status);
    expect(statuses).toEqual([200, 200]);
    const refused = await requestDeviceAuthorization(server.url, client, { scope: 'courses:read' });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(refused.json).toEqual({ error: 'too_many_requests', error_description: expect.stringMatching(/\S/) });
  });

  it('registration over the limit gets 429 too_many_requests as JSON, with Retry-After', async () => {
    const server = await start({ RATE_LIMIT_REGISTER_PER_MINUTE: '2' });
    expect(await registrations(server, 2)).toEqual([201, 201]);
    const res = await fetch(`${server.url}/api/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(CLIENT) });
    expect(res.status).toBe(429);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await res.json()).toEqual({ error: 'too_many_requests', error_description: expect.stringMatching(/\S/) });
  });

  it('sign-in submissions over the limit get a 429 HTML page', async () => {
    const server = await start({ RATE_LIMIT_SIGN_IN_PER_MINUTE: '2' });
    expect((await failedSignIn(server)).status).toBe(401);
    expect((await failedSignIn(server)).status).toBe(401);
    const res = await failedSignIn(server);
    expect(res.status).toBe(429);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toContain('Too many attempts');
    // The form itself (GET) is not limited.
    expect((await fetch(`${server.url}/oauth/sign-in`)).status).toBe(200);
  });

  it('0 turns a limit off', async () => {
    const server = await start({ RATE_LIMIT_REGISTER_PER_MINUTE: '0' });
    expect(await registrations(server, 8)).toEqual(Array(8).fill(201));
  });

  it('without REDIS_URL each instance counts on its own', async () => {
    const env = { RATE_LIMIT_REGISTER_PER_MINUTE: '2' };
    const [a, b] = await Promise.all([start(env), start(env)]);
    expect(await registrations(a, 3)).toEqual([201, 201, 429]);
    expect(await registrations(b, 3)).toEqual([201, 201, 429]);
  });
});

describe.skipIf(!HAVE_REDIS)('rate limits with REDIS_URL, two instances', () => {
  const prefix = `lyceum-test-${randomBytes(6).toString('hex')}:`;

  afterAll(async () => {
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  it('share one counter: requests to A and B add up to the limit', async () => {
    const env = { RATE_LIMIT_REGISTER_PER_MINUTE: '3', RATE_LIMIT_SIGN_IN_PER_MINUTE: '2', REDIS_URL, REDIS_KEY_PREFIX: prefix };
    const [a, b] = await Promise.all([start(env), start(env)]);
    expect(await registrations(a, 2)).toEqual([201, 201]);
    expect(await registrations(b, 2)).toEqual([201, 429]);
    expect(await registrations(a, 1)).toEqual([429]);
    // Sign-in has a counter of its own, shared the same way.
    expect((await failedSignIn(b)).status).toBe(401);
    expect((await failedSignIn(a)).status).toBe(401);
    expect((await failedSignIn(b)).status).toBe(429);
    const redis = new Redis(REDIS_URL);
    try {
      expect((await redis.keys(`${prefix}*`)).length).toBeGreaterThan(0);
    } finally {
      await redis.quit();
    }
  });

  it('an unreachable Redis lets requests through instead of failing them', async () => {
    const server = await start({ RATE_LIMIT_REGISTER_PER_MINUTE: '1', REDIS_URL: 'redis://127.0.0.1:1', REDIS_KEY_PREFIX: prefix });
    expect(await registrations(server, 2)).toEqual([201, 201]);
  });
});
