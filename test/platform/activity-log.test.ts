/**
 * The activity log over real HTTP on each store: what an app writes through
 * the API or an MCP tool is logged with the person, the app and the
 * operation, in the write's transaction (a refused write logs nothing, a
 * dry run is not a write); security events are logged; only the school's
 * owner and admins (school:read) read it, filtered and paged, or exported
 * as CSV or JSON; a person sees their apps' entries on /account/apps; the
 * retention purge is the only thing that deletes an entry.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeOnce } from '../../src/cli/purge.ts';
import { databaseDump, REGISTERED_REDIRECT_URI, startFlowServer, type FlowServer, type RegisteredClient } from '../helpers/flow.ts';
import { register } from '../helpers/oauth.ts';
import { mcpPost, resultOf, toolCall } from '../helpers/mcp.ts';
import { ALL_SCOPES, api, expectError, marker, tokenSource } from '../helpers/records.ts';
import { startTestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { asPage, UserAgent } from '../helpers/user-agent.ts';

type Entry = {
  id: string;
  at: string;
  event: string;
  user_id: string | null;
  client: { id: string; name: string | null; kind: string } | null;
  via: string;
  operation: string;
  record: { type: string; id: string } | null;
  fields: string[];
};

/** A self-registered app whose name a spreadsheet would run as a formula. */
const APP_NAME = '=HYPERLINK("http://evil.test","Agent")';

describe.each(STORE_KINDS)('the activity log (%s)', (kind) => {
  let server: FlowServer;
  let app: RegisteredClient;
  let token: (scope: string) => Promise<string>;

  beforeAll(async () => {
    server = await startFlowServer(kind);
    const { json } = await register(server.issuer, { client_name: APP_NAME, redirect_uris: [REGISTERED_REDIRECT_URI], token_endpoint_auth_method: 'none' });
    app = { clientId: json.client_id as string };
    token = tokenSource(server, server.user, 3, Promise.resolve(app));
  });
  afterAll(async () => {
    await server?.stop();
  });

  const read = async (query: Record<string, string> = {}, scope = ALL_SCOPES) => {
    const res = await api(server.issuer, 'GET', `/activity?${new URLSearchParams(query)}`, { token: await token(scope) });
    expect(res.status, res.text).toBe(200);
    return res.json as { data: Entry[]; next_cursor?: string };
  };
  const about = async (recordId: string) => (await read({ record_id: recordId })).data;

  it('logs an API write with the person, the app, the operation, the record and the field names, never the values', async () => {
    const title = marker('Secret title ');
    const created = await api(server.issuer, 'POST', '/courses', { token: await token(ALL_SCOPES), body: { title, price_cents: 4200 } });
    expect(created.status, created.text).toBe(201);
    const id = created.json.id as string;
    const [entry, ...rest] = await about(id);
    expect(rest).toEqual([]);
    expect(entry).toEqual({
      id: expect.stringMatching(/^act_/),
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      event: 'record.created',
      user_id: server.user.id,
      client: { id: app.clientId, name: APP_NAME, kind: 'self_registered' },
      via: 'api',
      operation: 'createCourse',
      record: { type: 'courses', id },
      fields: ['title', 'price_cents'],
    });
    const stored = JSON.stringify(JSON.parse(await databaseDump(server.databaseUrl)).activity);
    expect(stored).toContain(id);
    expect(stored).not.toContain(title);
    expect(stored).not.toContain('4200');

    expect((await api(server.issuer, 'PATCH', `/courses/${id}`, { token: await token(ALL_SCOPES), body: { status: 'published' } })).status).toBe(200);
    expect((await api(server.issuer, 'DELETE', `/courses/${id}`, { token: await token(ALL_SCOPES) })).status).toBe(204);
    expect((await about(id)).map((e) => [e.event, e.operation, e.fields])).toEqual([
      ['record.deleted', 'deleteCourse', []],
      ['record.updated', 'updateCourse', ['status']],
      ['record.created', 'createCourse', ['title', 'price_cents']],
    ]);
  });

  it("logs a change of the school's settings and appearance as the document's own record, naming the settings changed", async () => {
    expect((await api(server.issuer, 'PATCH', '/school', { token: await token(ALL_SCOPES), body: { name: 'Renamed' } })).status).toBe(200);
    expect((await api(server.issuer, 'PATCH', '/appearance', { token: await token(ALL_SCOPES), body: { primary_color: '#224466' } })).status).toBe(200);
    expect((await about('school')).map((e) => [e.event, e.record, e.fields, e.operation])).toEqual([['record.updated', { type: 'school', id: 'school' }, ['name'], 'updateSchool']]);
    expect((await about('appearance')).map((e) => [e.record, e.fields])).toEqual([[{ type: 'appearance', id: 'appearance' }, ['primary_color']]]);
  });

  it('logs nothing for a write that failed or was refused: the entry is committed with the change', async () => {
    const slug = marker('slug-');
    const first = await api(server.issuer, 'POST', '/courses', { token: await token(ALL_SCOPES), body: { title: 'One', slug } });
    expect(first.status).toBe(201);
    const before = (await read({ event: 'record.created', limit: '100' })).data.length;
    const taken = await api(server.issuer, 'POST', '/courses', { token: await token(ALL_SCOPES), body: { title: 'Two', slug } });
    expectError(taken, 409, 'conflict');
    const missing = await api(server.issuer, 'PATCH', '/courses/crs_nothere', { token: await token(ALL_SCOPES), body: { title: 'x' } });
    expect(missing.status).toBe(404);
    expect((await about('crs_nothere')).length).toBe(0);
    expect((await read({ event: 'record.created', limit: '100' })).data.length).toBe(before);
  });

  it('logs an MCP write as the tool the app called; a dry run is not a write', async () => {
    const bearer = `Bearer ${await token(ALL_SCOPES)}`;
    const preview = resultOf(await mcpPost(server.issuer, toolCall('create_record', { area: 'courses', values: { title: 'Preview' }, dry_run: true }), { authorization: bearer }));
    expect(preview.isError).toBeFalsy();
    const made = resultOf(await mcpPost(server.issuer, toolCall('create_record', { area: 'courses', values: { title: 'By an agent' } }), { authorization: bearer }));
    expect(made.isError, JSON.stringify(made)).toBeFalsy();
    const id = (made.structuredContent as { record: { id: string } }).record.id;
    expect(id).toMatch(/^crs_/);
    expect(await about(id)).toEqual([
      expect.objectContaining({ event: 'record.created', via: 'mcp', operation: 'create_record', client: expect.objectContaining({ id: app.clientId }), fields: ['title'] }),
    ]);
    expect((await read({ operation: 'create_record' })).data).toHaveLength(1);

    // The log's own tool, in the site toolset, shows the same entry.
    const listed = resultOf(await mcpPost(server.issuer, toolCall('list_activity', { record_id: id }), { authorization: bearer }));
    expect((listed.structuredContent as { data: Entry[] }).data.map((e) => e.id)).toEqual((await about(id)).map((e) => e.id));
    expect((listed.content as { text: string }[])[0]!.text).toContain(`record.created courses ${id}: title`);
  });

  it('logs sign-ins, failed sign-ins, consent, revocation and disconnection as security events', async () => {
    const person = await server.addUser('admin');
    const agent = new UserAgent(server.issuer);
    const refused = await agent.signIn(asPage(await agent.navigate('/oauth/sign-in')), { ...person, password: 'not-the-password' });
    expect(refused.status).toBe(401);
    const personToken = tokenSource(server, person, 1, Promise.resolve(app));
    const issued = await personToken('openid courses:read');
    const revoke = await fetch(server.revocationEndpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: issued, client_id: app.clientId }),
    });
    expect(revoke.status).toBe(200);
    const events = (await read({ user_id: person.id, limit: '100' })).data.map((e) => [e.event, e.via, e.client?.id ?? null]);
    expect(events).toEqual(
      expect.arrayContaining([
        ['sign_in_failed', 'web', null],
        ['sign_in', 'web', null],
        ['consent.given', 'web', app.clientId],
        ['tokens.revoked', 'api', app.clientId],
      ]),
    );
    const consent = (await read({ user_id: person.id, event: 'consent.given' })).data[0]!;
    expect(consent.fields).toEqual(['openid', 'courses:read']);
  });

  it('filters by person, app, record type, operation, event and time, and pages newest first with a cursor', async () => {
    const all = (await read({ client_id: app.clientId, limit: '100' })).data;
    expect(all.length).toBeGreaterThan(3);
    const times = all.map((e) => e.at);
    expect([...times].sort().reverse()).toEqual(times);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await read({ client_id: app.clientId, limit: '2', ...(cursor ? { cursor } : {}) });
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data.map((e) => e.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual(all.map((e) => e.id));
    expect((await read({ record_type: 'courses', limit: '100' })).data.every((e) => e.record?.type === 'courses')).toBe(true);
    expect((await read({ user_id: 'usr_nobody' })).data).toEqual([]);
    const newest = all[0]!.at;
    expect((await read({ client_id: app.clientId, since: newest, limit: '100' })).data.every((e) => e.at >= newest)).toBe(true);
    expect((await read({ client_id: app.clientId, until: newest, limit: '100' })).data.every((e) => e.at < newest)).toBe(true);
  });

  it('answers 400 to a cursor it did not make, a bad time, an unknown event and since after until', async () => {
    const bad = async (query: Record<string, string>) =>
      expectError(await api(server.issuer, 'GET', `/activity?${new URLSearchParams(query)}`, { token: await token(ALL_SCOPES) }), 400, 'invalid_request');
    await bad({ cursor: 'bm90IGEgY3Vyc29y' });
    await bad({ cursor: Buffer.from(JSON.stringify(['x', 'act_a'])).toString('base64url') });
    await bad({ since: 'yesterday' });
    await bad({ event: 'record.eaten' });
    await bad({ since: '2026-02-01T00:00:00Z', until: '2026-01-01T00:00:00Z' });
  });

  it('is read with school:read only: anonymous 401, a token without it 403, a lecturer can never hold it', async () => {
    expect((await api(server.issuer, 'GET', '/activity')).status).toBe(401);
    expectError(await api(server.issuer, 'GET', '/activity', { token: await token('courses:read') }), 403, 'insufficient_scope');
    const lecturer = await server.addUser('lecturer');
    await expect(tokenSource(server, lecturer, 1)('school:read courses:read')).rejects.toThrow('was granted "courses:read"');
  });

  it('exports CSV (formulas defused) and JSON with the same entries and filters', async () => {
    const headers = { authorization: `Bearer ${await token(ALL_SCOPES)}` };
    const csv = await fetch(`${server.issuer}/api/v1/activity/export?client_id=${encodeURIComponent(app.clientId)}`, { headers });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toMatch(/^attachment; filename="activity-\d{4}-\d\d-\d\d\.csv"/);
    const lines = (await csv.text()).trim().split('\n');
    expect(lines[0]).toBe('id,at,event,user_id,client_id,client_name,client_kind,via,operation,record_type,record_id,fields');
    const listed = (await read({ client_id: app.clientId, limit: '100' })).data;
    expect(lines.length - 1).toBe(listed.length);
    expect(lines[1]!.startsWith(`${listed[0]!.id},`)).toBe(true);
    // The app's name starts with "=": a spreadsheet must see text, not a formula.
    expect(lines.slice(1).every((l) => l.includes(`"'=HYPERLINK(""http://evil.test"",""Agent"")"`))).toBe(true);

    const json = await fetch(`${server.issuer}/api/v1/activity/export?format=json&client_id=${encodeURIComponent(app.clientId)}`, { headers });
    expect(json.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await json.json()).toEqual(listed);
    const refused = await fetch(`${server.issuer}/api/v1/activity/export?since=soon`, { headers });
    expect(refused.status).toBe(400);
  });

  it('shows a person, on /account/apps, what each connected app did for them', async () => {
    const agent = new UserAgent(server.issuer);
    const page = await agent.signIn(asPage(await agent.navigate('/account/apps')), server.user);
    expect(page.url).toBe(`${server.issuer}/account/apps`);
    expect(page.html).toContain('What it did recently');
    expect(page.html).toMatch(/created courses <code>crs_[^<]+<\/code> \(title\) <span class="muted">with create_record<\/span>/);
    // The app's own name is shown as text, never markup.
    expect(page.html).toContain('=HYPERLINK(&quot;http://evil.test&quot;,&quot;Agent&quot;)');
  });

  it.runIf(kind === 'postgres')('two instances on one database: a write on A is in the log read on B', async () => {
    const b = await startTestServer(kind, { DATABASE_URL: server.databaseUrl });
    try {
      const created = await api(server.issuer, 'POST', '/courses', { token: await token(ALL_SCOPES), body: { title: 'On A' } });
      expect(created.status).toBe(201);
      const onB = await api(b.issuer, 'GET', `/activity?record_id=${created.json.id as string}`, { token: await token(ALL_SCOPES) });
      expect((onB.json as { data: Entry[] }).data.map((e) => e.operation)).toEqual(['createCourse']);
    } finally {
      await b.close();
    }
  });

  it('keeps every entry until the retention purge, which deletes only the older ones', async () => {
    const store = server.deps.store;
    const entries = async () => (await store.activity.list({ limit: 1000 })).entries;
    const kept = await entries();
    expect((await purgeOnce(store, server.deps.config, server.deps.now())).activity).toBe(0);
    expect(await entries()).toEqual(kept);
    // A year on (ACTIVITY_RETENTION_DAYS), less a minute: the entries are all still there; a minute after, all gone.
    const newest = kept[0]!.at;
    const oldest = kept[kept.length - 1]!.at;
    const retention = server.deps.config.activityRetentionDays * 86_400_000;
    expect((await purgeOnce(store, server.deps.config, oldest + retention)).activity).toBe(0);
    expect((await purgeOnce(store, server.deps.config, newest + retention + 1)).activity).toBe(kept.length);
    expect(await entries()).toEqual([]);
  });
});
