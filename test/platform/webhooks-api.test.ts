/**
 * /api/v1/webhooks over real HTTP on each store: subscriptions are managed
 * and read with school:write, an event needs the read scope of the records
 * it carries, the signing secret is shown
 * once and sits in the database only sealed, and receivers are checked when
 * they are given (https at a public address, http on loopback only, private
 * addresses only when WEBHOOK_ALLOW_HOSTS names them).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import SQLite from 'better-sqlite3';
import { startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { allScopesBut, api, expectError, tokenSource } from '../helpers/records.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

async function storedRow(server: FlowServer, id: string): Promise<Record<string, unknown>> {
  if (server.databaseUrl.startsWith('postgres')) {
    const client = new pg.Client({ connectionString: server.databaseUrl });
    await client.connect();
    try {
      return (await client.query('select * from webhook_subscriptions where id = $1', [id])).rows[0] as Record<string, unknown>;
    } finally {
      await client.end();
    }
  }
  const db = new SQLite(server.databaseUrl, { readonly: true });
  try {
    return db.prepare('select * from webhook_subscriptions where id = ?').get(id) as Record<string, unknown>;
  } finally {
    db.close();
  }
}

describe.each(STORE_KINDS)('webhook subscriptions through the API (%s)', (kind) => {
  let server: FlowServer;
  let token: (scope: string) => Promise<string>;
  const RECEIVER = 'http://127.0.0.1:9/hooks';

  beforeAll(async () => {
    server = await startFlowServer(kind, { WEBHOOK_ALLOW_HOSTS: '10.1.2.3', WEBHOOK_POLL_INTERVAL_MS: '600000' });
    token = tokenSource(server);
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** school:write and the read scope of every event's records. */
  const owner = () => token('school:write students:read orders:read courses:read forms:read');
  const create = async (body: unknown) => api(server.issuer, 'POST', '/webhooks', { token: await owner(), body });

  it('creating answers 201 with the secret once; reads never show it', async () => {
    const res = await create({ url: RECEIVER, events: ['student.created', 'order.paid', 'student.created'], description: 'CRM sync' });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toEqual({
      id: expect.stringMatching(/^wh_/),
      url: RECEIVER,
      events: ['student.created', 'order.paid'],
      description: 'CRM sync',
      enabled: true,
      disabled_reason: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+=*$/),
    });
    // Standard Webhooks: the secret is base64 of 24 to 64 random bytes.
    expect(Buffer.from(String(res.json.secret).slice('whsec_'.length), 'base64')).toHaveLength(32);
    const id = String(res.json.id);
    const one = await api(server.issuer, 'GET', `/webhooks/${id}`, { token: await owner() });
    expect(one.status).toBe(200);
    expect(one.json).toEqual({ ...res.json, secret: undefined });
    expect(one.text).not.toContain('secret');
    const all = await api(server.issuer, 'GET', '/webhooks', { token: await owner() });
    expect(all.status).toBe(200);
    expect(all.data.find((w) => w.id === id)).toEqual(one.json);
    expect(all.text).not.toContain(String(res.json.secret).slice(6));
  });

  it('the secret sits in the database only sealed (a compact JWE), never in clear', async () => {
    const res = await create({ url: RECEIVER, events: ['student.created'] });
    const secret = String(res.json.secret);
    const row = await storedRow(server, String(res.json.id));
    const dump = JSON.stringify(row);
    expect(dump).not.toContain(secret.slice('whsec_'.length));
    expect(dump).not.toContain(Buffer.from(secret.slice(6), 'base64').toString('base64url'));
    expect(String(row.sealed_secret).split('.')).toHaveLength(5);
    // The server reads it back with its key.
    expect(await server.deps.keys.unsealSecret(String(row.sealed_secret))).toBe(secret);
  });

  it('needs a token: 401 without one', async () => {
    for (const [method, path] of [
      ['GET', '/webhooks'],
      ['POST', '/webhooks'],
      ['GET', '/webhooks/wh_x'],
      ['PATCH', '/webhooks/wh_x'],
      ['DELETE', '/webhooks/wh_x'],
      ['GET', '/webhooks/wh_x/deliveries'],
      ['POST', '/webhooks/wh_x/deliveries/whd_x/redeliver'],
    ] as const) {
      const res = await api(server.issuer, method, path, method === 'GET' || method === 'DELETE' ? {} : { body: { enabled: true } });
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.json.error).toBe('invalid_request');
    }
  });

  it('every operation needs school:write, reads included: 403 naming the scope', async () => {
    const created = await create({ url: RECEIVER, events: ['student.created'] });
    const id = String(created.json.id);
    const noWrite = await token(allScopesBut('school:write'));
    const readOnly = await token('school:read');
    for (const [method, path, body] of [
      ['GET', '/webhooks', undefined],
      ['GET', `/webhooks/${id}`, undefined],
      ['GET', `/webhooks/${id}/deliveries`, undefined],
      ['POST', '/webhooks', { url: RECEIVER, events: ['student.created'] }],
      ['PATCH', `/webhooks/${id}`, { enabled: false }],
      ['DELETE', `/webhooks/${id}`, undefined],
      ['POST', `/webhooks/${id}/deliveries/whd_x/redeliver`, undefined],
    ] as const) {
      for (const t of [noWrite, readOnly]) {
        const res = await api(server.issuer, method, path, { token: t, ...(body ? { body } : {}) });
        expectError(res, 403, 'insufficient_scope');
        expect(res.json.error_description, `${method} ${path}`).toBe('This operation needs the scope school:write');
      }
    }
  });

  it('a token that cannot read students cannot have them sent to a receiver either', async () => {
    // The attack: school:read school:write reads no student, so it must not subscribe to them.
    const t = await token('school:read school:write');
    expectError(await api(server.issuer, 'GET', '/students', { token: t }), 403, 'insufficient_scope');
    const before = (await api(server.issuer, 'GET', '/webhooks?limit=100', { token: await owner() })).data.length;
    for (const [events, needs] of [
      [['student.created'], 'school:write students:read'],
      [['course.published', 'lesson.completed', 'order.paid'], 'school:write courses:read students:read orders:read'],
      [['form_submission.created'], 'school:write forms:read'],
    ] as const) {
      const res = await api(server.issuer, 'POST', '/webhooks', { token: t, body: { url: RECEIVER, events } });
      expectError(res, 403, 'insufficient_scope');
      expect(res.json.error_description).toContain(`needs the scopes ${needs}`);
      expect(res.headers.get('www-authenticate')).toContain(`scope="${needs}"`);
    }
    expect((await api(server.issuer, 'GET', '/webhooks?limit=100', { token: await owner() })).data).toHaveLength(before);
    // Each event needs only the scope of what it carries, and the refusal names the events that lack theirs.
    const courses = await api(server.issuer, 'POST', '/webhooks', { token: await token('school:write courses:read'), body: { url: RECEIVER, events: ['course.published'] } });
    expect(courses.status, courses.text).toBe(201);
    const mixed = await api(server.issuer, 'POST', '/webhooks', {
      token: await token('school:write courses:read'),
      body: { url: RECEIVER, events: ['course.published', 'student.created', 'enrollment.created'] },
    });
    const description = 'The events student.created, enrollment.created send records this token cannot read: subscribing to them needs the scopes school:write courses:read students:read';
    expect({ status: mixed.status, body: mixed.json, challenge: mixed.headers.get('www-authenticate') }).toEqual({
      status: 403,
      body: { error: 'insufficient_scope', error_description: description },
      challenge: `Bearer error="insufficient_scope", scope="school:write courses:read students:read", error_description="${description}", resource_metadata="${server.issuer}/.well-known/oauth-protected-resource"`,
    });
  });

  it('changing a subscription needs the read scope of every event it will have: a new URL, new events, or turning it on', async () => {
    const created = await create({ url: RECEIVER, events: ['student.created', 'order.paid'] });
    const id = String(created.json.id);
    const writeOnly = await token('school:write');
    for (const [body, needs] of [
      [{ url: 'http://127.0.0.1:9/elsewhere' }, 'students:read orders:read'],
      [{ enabled: true }, 'students:read orders:read'],
      [{ description: 'renamed' }, 'students:read orders:read'],
      [{ events: ['student.created'] }, 'students:read'],
    ] as const) {
      const res = await api(server.issuer, 'PATCH', `/webhooks/${id}`, { token: writeOnly, body });
      expectError(res, 403, 'insufficient_scope');
      expect(res.json.error_description, JSON.stringify(body)).toContain(`needs the scopes school:write ${needs}`);
    }
    expect((await api(server.issuer, 'GET', `/webhooks/${id}`, { token: await owner() })).json).toMatchObject({ url: RECEIVER, events: ['student.created', 'order.paid'] });
    // Narrowed to what the token reads, and it may be changed by that token from then on.
    const narrowed = await api(server.issuer, 'PATCH', `/webhooks/${id}`, { token: await token('school:write courses:read'), body: { events: ['course.published'] } });
    expect(narrowed.status, narrowed.text).toBe(200);
    const moved = await api(server.issuer, 'PATCH', `/webhooks/${id}`, { token: await token('school:write courses:read'), body: { url: 'http://127.0.0.1:9/elsewhere' } });
    expect(moved.json).toMatchObject({ url: 'http://127.0.0.1:9/elsewhere', events: ['course.published'] });
  });

  it('an unknown event is refused by name; at least one event is needed', async () => {
    const unknown = await create({ url: RECEIVER, events: ['student.created', 'student.deleted'] });
    expectError(unknown, 400, 'invalid_request');
    expect(unknown.json.error_description).toContain('unknown event "student.deleted"');
    expectError(await create({ url: RECEIVER, events: [] }), 400, 'invalid_request');
    expectError(await create({ url: RECEIVER }), 400, 'invalid_request');
    expectError(await create({ url: RECEIVER, events: ['student.created'], extra: 1 }), 400, 'invalid_request');
  });

  it('receivers: https public or http loopback; private addresses refused unless allowed; long URLs refused', async () => {
    for (const url of [
      'https://10.0.0.7/hooks',
      'https://192.168.1.1/hooks',
      'https://[::1]/hooks',
      'https://169.254.169.254/latest',
      'http://93.184.215.14/hooks',
      'ftp://127.0.0.1/x',
      'not a url',
      'https://user:pw@93.184.215.14/x',
      'https://[::127.0.0.1]/hooks',
      'https://[::169.254.169.254]/latest',
      'https://[::1:7f00:1]/hooks',
    ]) {
      const res = await create({ url, events: ['student.created'] });
      expect(res.status, url).toBe(400);
      expect(res.json.error, url).toBe('invalid_request');
      expect(res.json.error_description, url).toMatch(/^url: /);
    }
    // https to a public address, http to loopback, and a private host WEBHOOK_ALLOW_HOSTS names.
    for (const url of ['https://93.184.215.14/hooks', 'http://127.0.0.1:8080/hooks', 'http://[::1]:8080/hooks', 'https://10.1.2.3/hooks']) {
      const res = await create({ url, events: ['student.created'] });
      expect(res.status, `${url}: ${res.text}`).toBe(201);
    }
    expectError(await create({ url: `https://93.184.215.14/${'a'.repeat(2000)}`, events: ['student.created'] }), 400, 'invalid_request');
  });

  it('says the same of a host that resolves privately and one that does not resolve: the answer maps no internal name', async () => {
    const answers = [];
    for (const url of ['https://localhost/hooks', 'https://no-such-host.invalid/hooks', 'https://10.0.0.7/hooks', 'http://no-such-host.invalid/hooks']) {
      const res = await create({ url, events: ['student.created'] });
      expectError(res, 400, 'invalid_request');
      answers.push(res.json.error_description);
    }
    expect(new Set(answers)).toEqual(new Set(['url: no receiver can be used at this address (receivers must be https at a public address, or http on loopback)']));
    // What is wrong with the URL as written is still said.
    expect((await create({ url: 'ftp://127.0.0.1/x', events: ['student.created'] })).json.error_description).toBe(
      'url: only https, or http to a loopback address (receivers must be https at a public address, or http on loopback)',
    );
  });

  it('PATCH changes the events and the enabled flag; a private URL is refused there too', async () => {
    const created = await create({ url: RECEIVER, events: ['student.created'] });
    const id = String(created.json.id);
    const off = await api(server.issuer, 'PATCH', `/webhooks/${id}`, { token: await owner(), body: { enabled: false, events: ['order.paid', 'order.refunded'] } });
    expect(off.status, off.text).toBe(200);
    expect(off.json).toMatchObject({ enabled: false, disabled_reason: 'disabled through the API', events: ['order.paid', 'order.refunded'] });
    const on = await api(server.issuer, 'PATCH', `/webhooks/${id}`, { token: await owner(), body: { enabled: true } });
    expect(on.json).toMatchObject({ enabled: true, disabled_reason: null });
    const bad = await api(server.issuer, 'PATCH', `/webhooks/${id}`, { token: await owner(), body: { url: 'https://10.9.9.9/x' } });
    expectError(bad, 400, 'invalid_request');
    expectError(await api(server.issuer, 'PATCH', `/webhooks/${id}`, { token: await owner(), body: { events: ['nope'] } }), 400, 'invalid_request');
    expectError(await api(server.issuer, 'PATCH', `/webhooks/${id}`, { token: await owner(), body: {} }), 400, 'invalid_request');
    expectError(await api(server.issuer, 'PATCH', '/webhooks/wh_unknown', { token: await owner(), body: { enabled: true } }), 404, 'not_found');
  });

  it('DELETE removes it (204), then it is gone (404)', async () => {
    const created = await create({ url: RECEIVER, events: ['student.created'] });
    const id = String(created.json.id);
    const del = await api(server.issuer, 'DELETE', `/webhooks/${id}`, { token: await owner() });
    expect(del.status).toBe(204);
    expectError(await api(server.issuer, 'GET', `/webhooks/${id}`, { token: await owner() }), 404, 'not_found');
    expectError(await api(server.issuer, 'DELETE', `/webhooks/${id}`, { token: await owner() }), 404, 'not_found');
    expectError(await api(server.issuer, 'GET', `/webhooks/${id}/deliveries`, { token: await owner() }), 404, 'not_found');
    expectError(await api(server.issuer, 'POST', `/webhooks/${id}/deliveries/whd_x/redeliver`, { token: await owner() }), 404, 'not_found');
  });

  it('lists page with a cursor; a cursor not made here is refused', async () => {
    const first = await api(server.issuer, 'GET', '/webhooks?limit=1', { token: await owner() });
    expect(first.data).toHaveLength(1);
    expect(first.json.next_cursor).toEqual(expect.any(String));
    const second = await api(server.issuer, 'GET', `/webhooks?limit=1&cursor=${String(first.json.next_cursor)}`, { token: await owner() });
    expect(second.data).toHaveLength(1);
    expect(second.data[0]!.id).not.toBe(first.data[0]!.id);
    expectError(await api(server.issuer, 'GET', '/webhooks?cursor=bogus', { token: await owner() }), 400, 'invalid_request');
  });

  it('the delivery log pages newest first with a cursor', async () => {
    const created = await create({ url: RECEIVER, events: ['student.created'] });
    const id = String(created.json.id);
    const t = await token('students:write');
    const made: string[] = [];
    for (const name of ['L1', 'L2', 'L3']) {
      const s = await api(server.issuer, 'POST', '/students', { token: t, body: { name, email: `${name}-${Date.now()}@example.test` } });
      made.push(String(s.json.id));
      // Distinct creation times, so newest-first is one order.
      await new Promise((r) => setTimeout(r, 5));
    }
    const first = await api(server.issuer, 'GET', `/webhooks/${id}/deliveries?limit=2`, { token: await owner() });
    expect(first.status, first.text).toBe(200);
    expect(first.data.map((d) => [d.status, d.attempts, d.event_type])).toEqual([
      ['pending', 0, 'student.created'],
      ['pending', 0, 'student.created'],
    ]);
    const second = await api(server.issuer, 'GET', `/webhooks/${id}/deliveries?limit=2&cursor=${String(first.json.next_cursor)}`, { token: await owner() });
    expect(second.data).toHaveLength(1);
    expect(second.json.next_cursor).toBeUndefined();
    const times = [...first.data, ...second.data].map((d) => Date.parse(String(d.created_at)));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it('/openapi.json describes every operation with its scope', async () => {
    const doc = (await (await fetch(`${server.issuer}/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId: string; security: Record<string, string[]>[] }>> };
    const ops = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/api/v1/webhooks'))
      .flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => [method.toUpperCase(), path, op.operationId, op.security.flatMap((s) => Object.values(s).flat()).join(' ')]));
    expect(ops.sort()).toEqual(
      [
        ['DELETE', '/api/v1/webhooks/{id}', 'deleteWebhook', 'school:write'],
        ['GET', '/api/v1/webhooks', 'listWebhooks', 'school:write'],
        ['GET', '/api/v1/webhooks/{id}', 'getWebhook', 'school:write'],
        ['GET', '/api/v1/webhooks/{id}/deliveries', 'listWebhookDeliveries', 'school:write'],
        ['PATCH', '/api/v1/webhooks/{id}', 'updateWebhook', 'school:write'],
        ['POST', '/api/v1/webhooks', 'createWebhook', 'school:write'],
        ['POST', '/api/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver', 'redeliverWebhook', 'school:write'],
      ].sort(),
    );
  });
});

describe.each(STORE_KINDS)('plain http receivers with WEBHOOK_HTTP_LOOPBACK=false, as on an https deployment (%s)', (kind) => {
  let server: FlowServer;

  beforeAll(async () => {
    server = await startFlowServer(kind, { WEBHOOK_HTTP_LOOPBACK: 'false', WEBHOOK_POLL_INTERVAL_MS: '600000' });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('refuses http even on loopback, and says receivers must be https', async () => {
    const t = await tokenSource(server)('school:write courses:read');
    for (const url of ['http://127.0.0.1:8080/hooks', 'http://[::1]:8080/hooks', 'http://localhost:8080/hooks']) {
      const res = await api(server.issuer, 'POST', '/webhooks', { token: t, body: { url, events: ['course.published'] } });
      expectError(res, 400, 'invalid_request');
      expect(res.json.error_description, url).toBe('url: only https (receivers must be https at a public address)');
    }
  });
});

describe.each(STORE_KINDS)('the number of webhook subscriptions (%s)', (kind) => {
  let server: FlowServer;
  let token: (scope: string) => Promise<string>;

  beforeAll(async () => {
    server = await startFlowServer(kind, { WEBHOOK_MAX_SUBSCRIPTIONS: '2', WEBHOOK_POLL_INTERVAL_MS: '600000' });
    token = tokenSource(server);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('is capped by WEBHOOK_MAX_SUBSCRIPTIONS: one more is 409 and stores nothing; a delete makes room', async () => {
    const t = await token('school:write courses:read');
    const create = () => api(server.issuer, 'POST', '/webhooks', { token: t, body: { url: 'http://127.0.0.1:9/hooks', events: ['course.published'] } });
    const first = await create();
    expect((await create()).status).toBe(201);
    const third = await create();
    expectError(third, 409, 'conflict');
    expect(third.json.error_description).toBe('The school already has 2 webhook subscriptions, the most this server allows (WEBHOOK_MAX_SUBSCRIPTIONS); delete one first');
    expect((await api(server.issuer, 'GET', '/webhooks', { token: t })).data).toHaveLength(2);
    expect((await api(server.issuer, 'DELETE', `/webhooks/${String(first.json.id)}`, { token: t })).status).toBe(204);
    expect((await create()).status).toBe(201);
  });
});
