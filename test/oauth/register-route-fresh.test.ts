/**
 * The registration route itself (RFC 7591 §3): what it accepts as a request
 * and the headers of its answer. The body limit and the rate limit are
 * options given when the route is registered, so each of those tests starts
 * its own server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectBody, postRaw } from '../helpers/flow.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const METADATA = { redirect_uris: ['http://127.0.0.1/cb'] };

/** A JSON registration body of exactly `bytes` bytes (padded with an unknown field, which is ignored). */
function bodyOfSize(bytes: number): string {
  const empty = JSON.stringify({ ...METADATA, padding: '' });
  const body = JSON.stringify({ ...METADATA, padding: 'x'.repeat(bytes - empty.length) });
  expect(Buffer.byteLength(body)).toBe(bytes);
  return body;
}

describe.each(STORE_KINDS)('the registration route (%s)', (kind) => {
  let server: TestServer;
  const register = (body: string, contentType = 'application/json') => postRaw(`${server.issuer}/api/oauth/register`, body, contentType);

  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('answers a registration with Pragma: no-cache beside Cache-Control: no-store (RFC 7591 §3.2.1)', async () => {
    const res = await register(JSON.stringify(METADATA));
    expect(res.status, res.text).toBe(201);
    expect({ cacheControl: res.headers.get('cache-control'), pragma: res.headers.get('pragma') }).toEqual({ cacheControl: 'no-store', pragma: 'no-cache' });
  });

  it('refuses with 415 a media type that only mentions application/json in a parameter', async () => {
    const res = await register(JSON.stringify(METADATA), 'text/plain; profile="application/json"');
    expectBody(res, 415, { error: 'invalid_request', error_description: 'Send the client metadata as application/json' });
  });
});

describe.each(STORE_KINDS)('the registration route’s limits, on a server of its own (%s)', (kind) => {
  it('takes a body of exactly REGISTRATION_BODY_LIMIT bytes and refuses one byte more with 413', async () => {
    const server = await startTestServer(kind, { REGISTRATION_BODY_LIMIT: '1024' });
    try {
      const url = `${server.issuer}/api/oauth/register`;
      const atLimit = await postRaw(url, bodyOfSize(1024), 'application/json');
      expect(atLimit.status, atLimit.text).toBe(201);
      expectBody(await postRaw(url, bodyOfSize(1025), 'application/json'), 413, {
        error: 'invalid_request',
        error_description: 'The request body is too large.',
      });
    } finally {
      await server.close();
    }
  });

  it('refuses registrations over RATE_LIMIT_REGISTER_PER_MINUTE from one address with 429 too_many_requests', async () => {
    const server = await startTestServer(kind, { RATE_LIMIT_REGISTER_PER_MINUTE: '2' });
    try {
      const url = `${server.issuer}/api/oauth/register`;
      const statuses = [];
      for (let i = 0; i < 2; i++) statuses.push((await postRaw(url, JSON.stringify(METADATA), 'application/json')).status);
      expect(statuses).toEqual([201, 201]);
      const over = await postRaw(url, JSON.stringify(METADATA), 'application/json');
      expect({ status: over.status, error: over.json.error }, over.text).toEqual({ status: 429, error: 'too_many_requests' });
      expect(over.headers.get('retry-after')).toMatch(/^\d+$/);
    } finally {
      await server.close();
    }
  });
});
