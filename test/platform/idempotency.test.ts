/**
 * Idempotency-Key on POSTs under /api/v1, over real HTTP on each store: a
 * retry replays the first answer and creates nothing more, another body
 * under the same key is refused, concurrent duplicates create one record,
 * keys are per caller, bad keys are refused, the purge forgets old keys, a
 * 429 is never kept, a kept answer is sealed, and /openapi.json documents
 * the header on every POST under /api/v1 and on nothing else.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeOnce } from '../../src/cli/purge.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { ALL_SCOPES, marker, startRecordsServer, tokenSource, type RecordsServer } from '../helpers/records.ts';
import { registerClient, startFlowServer, type FlowServer } from '../helpers/flow.ts';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { startTestServer, type TestServer } from '../helpers/server.ts';

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

async function post(issuer: string, path: string, token: string, body: unknown, key?: string): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  if (key !== undefined) headers['idempotency-key'] = key;
  const res = await fetch(`${issuer}/api/v1${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe.each(STORE_KINDS)('Idempotency-Key on %s', (kind) => {
  let r: RecordsServer;
  let token: string;
  const coursesCalled = async (title: string) => {
    const res = await fetch(`${r.server.issuer}/api/v1/courses?q=${encodeURIComponent(title)}&limit=100`, { headers: { authorization: `Bearer ${token}` } });
    const json = (await res.json()) as { data: { title: string }[] };
    return json.data.filter((c) => c.title === title).length;
  };

  beforeAll(async () => {
    r = await startRecordsServer(kind);
    token = await r.token(ALL_SCOPES);
  });
  afterAll(async () => {
    await r.server.stop();
  });

  it('a retry with the same key and body replays the first answer (status, body, Location) and creates no second record', async () => {
    const title = `Course ${marker()}`;
    const key = `key-${marker()}`;
    const first = await post(r.server.issuer, '/courses', token, { title }, key);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotency-replayed')).toBeNull();
    const created = JSON.parse(first.text) as { id: string };
    expect(first.headers.get('location')).toBe(`${r.server.issuer}/api/v1/courses/${created.id}`);

    const again = await post(r.server.issuer, '/courses', token, { title }, key);
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(await coursesCalled(title)).toBe(1);
  });

  it('the key may be sent as a structured-field string: "k" is the same key as k', async () => {
    const title = `Course ${marker()}`;
    const key = `key-${marker()}`;
    const first = await post(r.server.issuer, '/courses', token, { title }, key);
    const again = await post(r.server.issuer, '/courses', token, { title }, `"${key}"`);
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(await coursesCalled(title)).toBe(1);
  });

  it('the same body with its keys in another order is the same request', async () => {
    const title = `Course ${marker()}`;
    const key = `key-${marker()}`;
    const first = await post(r.server.issuer, '/courses', token, { title, summary: 'S', price_cents: 100 }, key);
    const again = await post(r.server.issuer, '/courses', token, { price_cents: 100, summary: 'S', title }, key);
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
  });

  it('the same key with another body is 422 idempotency_key_reused, and nothing is created', async () => {
    const key = `key-${marker()}`;
    const title = `Course ${marker()}`;
    expect((await post(r.server.issuer, '/courses', token, { title }, key)).status).toBe(201);
    const other = `Course ${marker()}`;
    const refused = await post(r.server.issuer, '/courses', token, { title: other }, key);
    expect(refused.status).toBe(422);
    expect(JSON.parse(refused.text)).toEqual({
      error: 'idempotency_key_reused',
      error_description: 'This Idempotency-Key was already used with a different request body; use a new key for a new request',
    });
    expect(await coursesCalled(other)).toBe(0);
  });

  it('five concurrent requests with one key create one record, and all five get its answer', async () => {
    const title = `Course ${marker()}`;
    const key = `key-${marker()}`;
    const answers = await Promise.all(Array.from({ length: 5 }, () => post(r.server.issuer, '/courses', token, { title }, key)));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(answers.filter((a) => a.headers.get('idempotency-replayed') === 'true')).toHaveLength(4);
    expect(await coursesCalled(title)).toBe(1);
  });

  it('keys are per caller: another client using the same key creates its own record', async () => {
    const otherToken = await tokenSource(r.server)(ALL_SCOPES);
    const key = `key-${marker()}`;
    const title = `Course ${marker()}`;
    const mine = await post(r.server.issuer, '/courses', token, { title }, key);
    const theirs = await post(r.server.issuer, '/courses', otherToken, { title }, key);
    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotency-replayed')).toBeNull();
    expect(JSON.parse(theirs.text).id).not.toBe(JSON.parse(mine.text).id);
    expect(await coursesCalled(title)).toBe(2);
  });

  it('keys are per person too: two people of one app sending the same key and body each get their own record and secret', async () => {
    // The app is one client; its two users are the owner and an admin of the school.
    const app = registerClient(r.server.issuer);
    const admin = await r.server.addUser('admin');
    const [ownerToken, adminToken] = await Promise.all([tokenSource(r.server, r.server.user, 1, app)('school:write courses:read'), tokenSource(r.server, admin, 1, app)('school:write courses:read')]);
    const key = `key-${marker()}`;
    const body = { url: 'http://127.0.0.1:9/crm', events: ['course.published'] };
    const mine = await post(r.server.issuer, '/webhooks', ownerToken, body, key);
    const theirs = await post(r.server.issuer, '/webhooks', adminToken, body, key);
    expect(mine.status, mine.text).toBe(201);
    expect(theirs.status, theirs.text).toBe(201);
    expect(theirs.headers.get('idempotency-replayed')).toBeNull();
    const [a, b] = [JSON.parse(mine.text), JSON.parse(theirs.text)] as { id: string; secret: string }[];
    expect(b!.id).not.toBe(a!.id);
    expect(b!.secret).not.toBe(a!.secret);
    // Each person's retry replays their own answer.
    expect((await post(r.server.issuer, '/webhooks', adminToken, body, key)).text).toBe(theirs.text);
    expect((await post(r.server.issuer, '/webhooks', ownerToken, body, key)).text).toBe(mine.text);
  });

  it('keys are per path: the same key on another area is another request', async () => {
    const key = `key-${marker()}`;
    expect((await post(r.server.issuer, '/courses', token, { title: `Course ${marker()}` }, key)).status).toBe(201);
    const other = await post(r.server.issuer, '/posts', token, { title: `Post ${marker()}` }, key);
    expect(other.status).toBe(201);
    expect(other.headers.get('idempotency-replayed')).toBeNull();
  });

  it.each([
    ['too long', 'k'.repeat(256)],
    ['empty', ''],
    ['an empty structured string', '""'],
    ['not printable ASCII', 'caf\u00e9'],
  ])('a key that is %s is 400 invalid_request and nothing is created', async (_why, key) => {
    const title = `Course ${marker()}`;
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    // fetch refuses to send a non-Latin-1 header value; é is Latin-1 and goes out as one byte.
    headers['idempotency-key'] = key;
    const res = await fetch(`${r.server.issuer}/api/v1/courses`, { method: 'POST', headers, body: JSON.stringify({ title }) });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid_request', error_description: 'The Idempotency-Key header must be 1 to 255 printable ASCII characters, sent once' });
    expect(await coursesCalled(title)).toBe(0);
  });

  it('a key of 255 printable characters is accepted', async () => {
    const key = `${marker()}-`.padEnd(255, '~');
    expect((await post(r.server.issuer, '/courses', token, { title: `Course ${marker()}` }, key)).status).toBe(201);
  });

  it('a refused request (4xx, final) is replayed too: the key holds its answer', async () => {
    const key = `key-${marker()}`;
    const first = await post(r.server.issuer, '/enrollments', token, { student_id: 'stu_missing', course_id: 'crs_missing' }, key);
    expect(first.status).toBeGreaterThanOrEqual(400);
    expect(first.status).toBeLessThan(500);
    const again = await post(r.server.issuer, '/enrollments', token, { student_id: 'stu_missing', course_id: 'crs_missing' }, key);
    expect(again.status).toBe(first.status);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
  });

  it('a kept answer is sealed in the database: the body is not stored in clear', async () => {
    const title = `Sealed ${marker()}`;
    expect((await post(r.server.issuer, '/courses', token, { title }, `key-${marker()}`)).status).toBe(201);
    const stored = await storedAnswers(r.server.databaseUrl);
    expect(stored.length).toBeGreaterThan(0);
    expect(stored.some((row) => row.includes(title))).toBe(false);
    // A compact JWE with direct encryption: header, empty key, IV, ciphertext, tag.
    for (const row of stored) expect(row).toMatch(/^[\w-]+\.\.[\w-]+\.[\w-]+\.[\w-]+$/);
  });

  // Last: it moves the server's clock a day on, past the tokens' lifetime.
  it('the purge keeps a key for its retention and deletes it once the retention has passed', async () => {
    const key = `key-${marker()}`;
    expect((await post(r.server.issuer, '/courses', token, { title: `Course ${marker()}` }, key)).status).toBe(201);
    const { deps } = r.server;
    const kept = (await storedAnswers(r.server.databaseUrl)).length;
    expect((await purgeOnce(deps.store, deps.config, deps.now())).idempotencyKeys).toBe(0);
    r.server.advance(deps.config.idempotencyKeyRetention * 1000 - 60_000);
    expect((await purgeOnce(deps.store, deps.config, deps.now())).idempotencyKeys).toBe(0);
    expect((await storedAnswers(r.server.databaseUrl)).length).toBe(kept);

    r.server.advance(120_000);
    expect((await purgeOnce(deps.store, deps.config, deps.now())).idempotencyKeys).toBe(kept);
    expect(await storedAnswers(r.server.databaseUrl)).toEqual([]);
  });
});

/** The kept answers of the idempotency_keys table, read straight from the database. */
async function storedAnswers(databaseUrl: string): Promise<string[]> {
  const query = 'SELECT response FROM idempotency_keys WHERE response IS NOT NULL';
  if (databaseUrl.startsWith('postgres')) {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      return (await client.query<{ response: string }>(query)).rows.map((row) => row.response);
    } finally {
      await client.end();
    }
  }
  const db = new SQLite(databaseUrl, { readonly: true });
  try {
    return (db.prepare(query).all() as { response: string }[]).map((row) => row.response);
  } finally {
    db.close();
  }
}

describe.each(STORE_KINDS)('Idempotency-Key on uploads and the store (%s)', (kind) => {
  let server: FlowServer;
  let bearer: string;
  beforeAll(async () => {
    server = await startFlowServer(kind, { RATE_LIMIT_UPLOAD_PER_MINUTE: '1' });
    bearer = `Bearer ${await tokenSource(server)('storage:write')}`;
  });
  afterAll(() => server.stop());

  const upload = async (text: string, key: string) => {
    const form = new FormData();
    form.append('file', new Blob([text], { type: 'text/plain' }), 'notes.txt');
    const res = await fetch(`${server.issuer}/api/v1/storage`, { method: 'POST', headers: { authorization: bearer, 'idempotency-key': key }, body: form });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };
  const files = async () => ((await (await fetch(`${server.issuer}/api/v1/storage`, { headers: { authorization: bearer } })).json()) as { data: unknown[] }).data.length;

  it('an upload retried with its key is replayed, stores no second file and costs none of the upload limit; a 429 is not kept', async () => {
    const first = await upload('first file', 'upload-1');
    expect(first.status).toBe(201);
    const again = await upload('first file', 'upload-1');
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(await files()).toBe(1);

    // The limit (1 a minute) is used up: a new key is refused, and the refusal is not kept for it.
    const limited = await upload('second file', 'upload-2');
    expect(limited.status).toBe(429);
    const otherBody = await upload('another second file', 'upload-2');
    expect(otherBody.status).toBe(429);
    expect(JSON.parse(otherBody.text)).toMatchObject({ error: 'too_many_requests' });
    expect(await files()).toBe(1);
  });

  it('a key left running by a request that died is taken over once its lease has passed, by one claimer only', async () => {
    const { idempotencyKeys } = server.deps.store;
    const hash = `test-${marker()}`;
    const row = { hash, fingerprint: 'f', createdAt: 1_000, expiresAt: 1_000 + 86_400_000 };
    expect(await idempotencyKeys.claim(row, 0)).toEqual({ claimed: true });
    expect(await idempotencyKeys.claim({ ...row, createdAt: 2_000 }, 500)).toMatchObject({ claimed: false, existing: { status: null } });
    const racing = await Promise.all([idempotencyKeys.claim({ ...row, createdAt: 70_000 }, 5_000), idempotencyKeys.claim({ ...row, createdAt: 70_000 }, 5_000)]);
    expect(racing.filter((c) => c.claimed)).toHaveLength(1);
    expect(await idempotencyKeys.complete(hash, 201, 'sealed')).toBe(true);
    expect(await idempotencyKeys.complete(hash, 500, 'again')).toBe(false);
    // A finished key is never taken over, however old.
    expect(await idempotencyKeys.claim({ ...row, createdAt: 999_000 }, 900_000)).toMatchObject({ claimed: false, existing: { status: 201, response: 'sealed' } });
    await idempotencyKeys.release(hash);
    expect((await idempotencyKeys.find(hash))?.status).toBe(201);
  });
});

describe('/openapi.json and Idempotency-Key', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite');
  });
  afterAll(async () => {
    await server.close();
  });

  type Operation = { parameters?: { in: string; name: string; required?: boolean; schema?: { maxLength?: number } }[]; responses: Record<string, unknown> };
  const idempotencyParameters = (op: Operation) => (op.parameters ?? []).filter((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');

  it('documents the optional header, and its 409 and 422, on every POST under /api/v1 and on no other operation', async () => {
    const doc = (await (await fetch(`${server.issuer}/openapi.json`)).json()) as { paths: Record<string, Record<string, Operation>> };
    const posts: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        const found = idempotencyParameters(op);
        if (method === 'post' && path.startsWith('/api/v1/')) {
          posts.push(path);
          expect(found, `${method} ${path}`).toHaveLength(1);
          expect(found[0]!.required ?? false).toBe(false);
          expect(found[0]!.schema?.maxLength).toBe(255);
          expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['409', '422']));
        } else {
          expect(found, `${method} ${path}`).toEqual([]);
        }
      }
    }
    // The record areas' creates, the curriculum reorder and the upload at least.
    expect(posts).toEqual(expect.arrayContaining(['/api/v1/courses', '/api/v1/storage', '/api/v1/courses/{id}/curriculum/reorder']));
  });
});
