/**
 * Bounded growth of uploads over real HTTP, once per store: the school's
 * storage quota (STORAGE_QUOTA_BYTES) holds with concurrent uploads through
 * two instances on one database, a delete frees room, and uploads are rate
 * limited per access token (RATE_LIMIT_UPLOAD_PER_MINUTE).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJson, type JsonResponse } from '../helpers/bearer.ts';
import { expectOAuthError, obtainTokens, startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const QUOTA = 4096;
const UPLOADS_PER_MINUTE = 2;

function upload(issuer: string, authorization: string, bytes: number, name = 'notes.txt'): Promise<JsonResponse> {
  const form = new FormData();
  form.append('file', new Blob(['x'.repeat(bytes)], { type: 'text/plain' }), name);
  return fetch(`${issuer}/api/v1/storage`, { method: 'POST', headers: { authorization }, body: form }).then(readJson);
}

const remove = (issuer: string, authorization: string, id: string) => fetch(`${issuer}/api/v1/storage/${id}`, { method: 'DELETE', headers: { authorization } });

async function storageToken(server: FlowServer): Promise<string> {
  const { tokens } = await obtainTokens(server, { scope: 'storage:write' });
  return `Bearer ${tokens.access_token}`;
}

describe.each(STORE_KINDS)('storage quota (%s)', (kind) => {
  let server: FlowServer;
  let second: TestServer;
  let bearer: string;
  beforeAll(async () => {
    const env = { STORAGE_QUOTA_BYTES: String(QUOTA), RATE_LIMIT_UPLOAD_PER_MINUTE: '0' };
    server = await startFlowServer(kind, env);
    // A second instance on the same database: the quota must hold across processes' connections.
    second = await startTestServer(kind, { ...env, DATABASE_URL: server.databaseUrl });
    bearer = await storageToken(server);
  });
  afterAll(async () => {
    // Uploaded bytes outside the test's own directory (PostgreSQL: ./data/files) are removed.
    for (const { id } of await server.deps.store.files.list(100)) await remove(server.issuer, bearer, id);
    await second.close();
    await server.stop();
  });

  it('refuses with 413 invalid_request an upload that would pass the quota, naming it and what is used; a delete frees room', async () => {
    const first = await upload(server.issuer, bearer, 3000);
    expect(first.status, first.text).toBe(201);

    const over = await upload(server.issuer, bearer, 2000);
    expectOAuthError(over, 413, 'invalid_request');
    expect(over.json.error_description).toBe(
      "The school's storage quota is 4.0 KiB (STORAGE_QUOTA_BYTES=4096); 2.9 KiB (3000 bytes) is used and this file needs 2.0 KiB (2000 bytes). Delete files to make room.",
    );
    expect(await server.deps.store.files.usedBytes()).toBe(3000);

    // Exactly up to the quota still fits.
    const fits = await upload(server.issuer, bearer, QUOTA - 3000);
    expect(fits.status, fits.text).toBe(201);

    expect((await remove(server.issuer, bearer, String(first.json.id))).status).toBe(204);
    expect((await remove(server.issuer, bearer, String(fits.json.id))).status).toBe(204);
    const again = await upload(server.issuer, bearer, 2000);
    expect(again.status, again.text).toBe(201);
    expect((await remove(server.issuer, bearer, String(again.json.id))).status).toBe(204);
    expect(await server.deps.store.files.usedBytes()).toBe(0);
  });

  it('lets exactly one of many concurrent uploads through two instances pass when only one fits', async () => {
    const issuers = [server.issuer, second.issuer];
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => upload(issuers[i % 2]!, bearer, 3000, `race-${i}.txt`)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 413, 413, 413, 413, 413, 413, 413, 413, 413]);
    for (const r of results.filter((x) => x.status === 413)) expect(r.json.error).toBe('invalid_request');
    expect(await server.deps.store.files.usedBytes()).toBe(3000);
    const winner = results.find((r) => r.status === 201)!;
    expect((await remove(server.issuer, bearer, String(winner.json.id))).status).toBe(204);
  });
});

describe.each(STORE_KINDS)('upload rate limit per access token (%s)', (kind) => {
  let server: FlowServer;
  beforeAll(async () => {
    server = await startFlowServer(kind, { RATE_LIMIT_UPLOAD_PER_MINUTE: String(UPLOADS_PER_MINUTE) });
  });
  afterAll(async () => {
    const bearer = await storageToken(server);
    for (const { id } of await server.deps.store.files.list(100)) await remove(server.issuer, bearer, id);
    await server.stop();
  });

  it('answers 429 too_many_requests with Retry-After past the limit, counting each token apart however its header is written', async () => {
    const bearer = await storageToken(server);
    for (let i = 0; i < UPLOADS_PER_MINUTE; i++) expect((await upload(server.issuer, bearer, 10)).status).toBe(201);

    const over = await upload(server.issuer, bearer, 10);
    expectOAuthError(over, 429, 'too_many_requests');
    expect(over.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);

    // The same token written differently (RFC 6750 §2.1 allows any case of the scheme and more spaces) is the same caller.
    const token = bearer.slice('Bearer '.length);
    expectOAuthError(await upload(server.issuer, `bearer   ${token}`, 10), 429, 'too_many_requests');

    // Another token has a budget of its own.
    const other = await storageToken(server);
    expect((await upload(server.issuer, other, 10)).status).toBe(201);
  });
});
