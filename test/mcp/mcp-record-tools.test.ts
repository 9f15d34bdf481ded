/**
 * The record tools over every area (list_records, get_record, create_record,
 * update_record, delete_record): what each caller's list shows of them, the
 * scopes a call needs by area or id prefix, lists with filters, q, cursors and
 * fields, the write round trips checked over REST, and dry runs that write
 * nothing and fail exactly as the real write does. Calls go through the MCP
 * SDK client over real HTTP.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/demo/seed.ts';
import { parseChallenge } from '../helpers/bearer.ts';
import { mcpPost, toolCall } from '../helpers/mcp.ts';
import { ALL_SCOPES, marker, startRecordsServer, type RecordsServer } from '../helpers/records.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

type CallResult = { content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };
type Row = Record<string, unknown>;

/** One call per area with the scope it needs, stated by hand; the catalog areas' reads need none. */
const SCOPE_SAMPLES: [tool: string, args: Row, scope: string][] = [
  ['create_record', { area: 'courses', values: { title: 'x' } }, 'courses:write'],
  ['list_records', { area: 'sections' }, 'curriculum:read'],
  ['update_record', { id: 'les_x', values: { title: 'x' } }, 'curriculum:write'],
  ['delete_record', { id: 'lec_x' }, 'lecturers:write'],
  ['list_records', { area: 'students' }, 'students:read'],
  ['get_record', { id: 'enr_x' }, 'students:read'],
  ['list_records', { area: 'members' }, 'members:read'],
  ['create_record', { area: 'membership_plans', values: { name: 'x' } }, 'membership_plans:write'],
  ['list_records', { area: 'subscriptions' }, 'subscriptions:read'],
  ['update_record', { id: 'prd_x', values: { name: 'x' } }, 'digital_products:write'],
  ['list_records', { area: 'coupons' }, 'coupons:read'],
  ['get_record', { id: 'ord_x' }, 'orders:read'],
  ['delete_record', { id: 'evt_x' }, 'events:write'],
  ['list_records', { area: 'event_attendees' }, 'events:read'],
  ['create_record', { area: 'posts', values: { title: 'x' } }, 'posts:write'],
  ['list_records', { area: 'comments' }, 'comments:read'],
  ['list_records', { area: 'forms' }, 'forms:read'],
  ['get_record', { id: 'fsb_x' }, 'forms:read'],
  ['update_record', { id: 'pag_x', values: { title: 'x' } }, 'pages:write'],
  ['update_school_settings', { name: 'x' }, 'school:write'],
  ['update_appearance', { theme: 'dark' }, 'appearance:write'],
  ['publish_course', { id: 'crs_x' }, 'courses:write'],
  ['get_school_summary', {}, 'courses:read students:read orders:read events:read'],
];

/** The anonymous REST path of each public area. */
const PUBLIC_LISTS: [area: string, path: string][] = [
  ['courses', '/courses'],
  ['lecturers', '/lecturers'],
  ['membership_plans', '/membership-plans'],
  ['digital_products', '/digital-products'],
  ['events', '/events'],
  ['posts', '/posts'],
  ['pages', '/pages'],
];

describe.each(STORE_KINDS)('MCP record tools over every area (%s)', (kind) => {
  let ctx: RecordsServer;
  let staff: Client;
  let tools: Awaited<ReturnType<Client['listTools']>>['tools'];

  async function connect(token?: string, headers: Record<string, string> = {}): Promise<Client> {
    const client = new Client({ name: 'record-tools-test', version: '1.0.0' });
    const sent: Record<string, string> = { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) };
    await client.connect(new StreamableHTTPClientTransport(new URL(`${ctx.server.issuer}/mcp`), { requestInit: { headers: sent } }));
    return client;
  }

  beforeAll(async () => {
    ctx = await startRecordsServer(kind);
    await seedDemo(ctx.server.deps.store);
    staff = await connect(await ctx.token(ALL_SCOPES), { 'x-mcp-toolsets': 'all' });
    tools = (await staff.listTools()).tools;
  });
  afterAll(async () => {
    await staff?.close();
    await ctx?.server.stop();
  });

  const call = async (name: string, args: Row = {}, client = staff) => (await client.callTool({ name, arguments: args })) as CallResult;

  async function ok(name: string, args: Row = {}, client = staff): Promise<Row> {
    const result = await call(name, args, client);
    expect(result.isError ?? false, `${name}: ${JSON.stringify(result.content)}`).toBe(false);
    expect(
      result.content.filter((c) => c.type === 'text'),
      name,
    ).toHaveLength(1);
    return result.structuredContent!;
  }

  /** A tool error: the text the caller reads. */
  async function refused(name: string, args: Row): Promise<string> {
    const result = await call(name, args);
    expect(result.isError, `${name} should fail: ${JSON.stringify(result.structuredContent)}`).toBe(true);
    return result.content[0]!.text!;
  }

  const list = async (area: string, args: Row = {}, client = staff) => (await ok('list_records', { area, ...args }, client)).records as Row[];
  const ids = (rows: unknown) => (rows as Row[]).map((r) => r.id);
  const schemaOf = (name: string) => tools.find((t) => t.name === name)!.inputSchema as { properties: Record<string, Row>; required?: string[]; additionalProperties?: unknown };

  it('reaches every area with five tools, the writable ones with the writes', () => {
    const areas = (schemaOf('list_records').properties.area as { enum: string[] }).enum;
    expect(areas.sort()).toEqual(
      [
        'comments',
        'coupons',
        'courses',
        'digital_products',
        'enrollments',
        'event_attendees',
        'events',
        'form_submissions',
        'forms',
        'lecturers',
        'lessons',
        'members',
        'membership_plans',
        'orders',
        'pages',
        'posts',
        'sections',
        'students',
        'subscriptions',
      ].sort(),
    );
    const writable = (schemaOf('create_record').properties.area as { enum: string[] }).enum;
    expect(writable).not.toContain('orders');
    expect(writable).not.toContain('form_submissions');
    expect(writable).toContain('coupons');
    for (const name of ['get_record', 'delete_record']) expect(schemaOf(name).required, name).toEqual(['id']);
    expect(schemaOf('update_record').required).toEqual(['id', 'values']);
  });

  it('marks each tool with the hints its kind calls for, and refuses an argument it does not take, naming the right one', async () => {
    const hints = Object.fromEntries(tools.filter((t) => t.name.endsWith('_record') || t.name === 'list_records').map((t) => [t.name, t.annotations]));
    expect(hints).toEqual({
      list_records: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      get_record: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      create_record: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      update_record: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      delete_record: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    });
    for (const tool of tools) expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
    expect(await refused('list_records', { area: 'courses', limt: 5 })).toMatch(/unknown argument "limt"; did you mean "limit"\?/);
    expect(await refused('list_records', { area: 'cours' })).toMatch(/area/);
    // A lesson's course comes from its section: the server sets it, and a value for it is refused with a hint.
    const lesson = (await ctx.owner('GET', '/curriculum/lessons?limit=1')).data[0]!;
    const wrong = await refused('update_record', { id: lesson.id, values: { course_id: 'crs_other' }, dry_run: true });
    expect(wrong).toMatch(/unknown lesson field "course_id"/);
    expect(wrong).toMatch(/section_id/);
    expect(await refused('create_record', { area: 'events', values: { title: 'Night', starts_at: '2026-12-01T18:00:00' } })).toMatch(/offset or Z/);
  });

  it('names the scope in the description of scoped tools, and says the public areas need none', () => {
    for (const name of ['update_school_settings', 'publish_course']) expect(tools.find((t) => t.name === name)!.description, name).toMatch(/\(scope: /);
    expect(tools.find((t) => t.name === 'list_records')!.description).toMatch(/Without the area's read scope, courses.* show published records and public fields/);
  });

  it('refuses a call without its scope with HTTP 403 naming every scope it needs, and an anonymous one with 401', async () => {
    const narrow = await ctx.token('account:read');
    for (const [tool, args, scope] of SCOPE_SAMPLES) {
      const forbidden = await mcpPost(ctx.server.issuer, toolCall(tool, args), { authorization: `Bearer ${narrow}` });
      expect({ status: forbidden.status, body: forbidden.json }, tool).toEqual({ status: 403, body: { error: 'insufficient_scope', error_description: expect.stringMatching(/\S/) } });
      expect(parseChallenge(forbidden.headers.get('www-authenticate')).params.scope, `${tool} ${JSON.stringify(args)}`).toBe(scope);
      const anonymous = await mcpPost(ctx.server.issuer, toolCall(tool, args));
      expect({ status: anonymous.status, error: (anonymous.json as Row).error }, tool).toEqual({ status: 401, error: 'invalid_request' });
    }
  });

  it('serves the public areas to anonymous callers and narrow tokens as the anonymous REST list does', async () => {
    const anonymous = await connect();
    const narrow = await connect(await ctx.token('account:read'));
    try {
      for (const [area, path] of PUBLIC_LISTS) {
        const rest = await ctx.anonymous('GET', `${path}?limit=10`);
        expect(rest.status, area).toBe(200);
        for (const client of [anonymous, narrow]) {
          const structured = await ok('list_records', { area }, client);
          expect(ids(structured.records), area).toEqual(ids(rest.data));
          expect(structured.next_cursor, area).toBe(rest.json.next_cursor);
        }
      }
      const course = (await ctx.anonymous('GET', '/courses?limit=1')).data[0]!;
      expect((await ok('get_record', { id: course.id }, anonymous)).record).toEqual(course);
    } finally {
      await anonymous.close();
      await narrow.close();
    }
  });

  it('filters, searches and pages as GET /api/v1 does, 10 records by default', async () => {
    const cases: [Row, string][] = [
      [{}, ''],
      [{ filters: { status: 'draft' } }, 'status=draft'],
      [{ filters: { level: 'advanced', language: 'en' } }, 'level=advanced&language=en'],
      [{ q: 'python' }, 'q=python'],
    ];
    for (const [args, query] of cases) {
      const rest = await ctx.owner('GET', `/courses?limit=10&${query}`);
      expect(ids(await list('courses', args)), query).toEqual(ids(rest.data));
    }
    const students = await ctx.owner('GET', '/students?limit=100');
    expect(students.data.length).toBeGreaterThan(10);
    const seen: unknown[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 20; page++) {
      const structured = await ok('list_records', { area: 'students', limit: 7, ...(cursor ? { cursor } : {}) });
      expect((structured.records as Row[]).length).toBeLessThanOrEqual(7);
      seen.push(...ids(structured.records));
      cursor = structured.next_cursor as string | undefined;
      if (!cursor) break;
    }
    expect(seen).toEqual(ids(students.data));
    expect((await list('students')).length).toBe(10);
    const one = students.data[3]!;
    expect(ids(await list('students', { filters: { email: String(one.email).toUpperCase() } }))).toEqual([one.id]);
    expect(await refused('list_records', { area: 'students', filters: { colour: 'red' } })).toMatch(/cannot be filtered by "colour"; the filters are/);
    expect(await refused('list_records', { area: 'students', filters: { status: 'asleep' } })).toMatch(/status must be one of active, suspended/);
    expect(await refused('list_records', { area: 'students', limit: 51 })).toMatch(/limit/);
  });

  it('leaves long text out of lists unless detail or fields asks for it, and answers only the fields asked for', async () => {
    const listed = await list('courses');
    expect(listed[0]).not.toHaveProperty('description');
    expect(listed[0]).toHaveProperty('summary');
    expect((await list('courses', { detail: true }))[0]).toHaveProperty('description');
    const chosen = await list('courses', { fields: ['title', 'description'] });
    for (const c of chosen) expect(Object.keys(c).sort()).toEqual(['description', 'id', 'title']);
    const full = await ctx.owner('GET', `/courses/${String(listed[0]!.id)}`);
    expect((await ok('get_record', { id: listed[0]!.id })).record).toEqual(full.json);
    const lecturer = (await ctx.owner('GET', '/lecturers?limit=1')).data[0]!;
    expect((await ok('get_record', { id: lecturer.id, fields: ['email'] })).record).toEqual({ id: lecturer.id, email: lecturer.email });
    expect(await refused('list_records', { area: 'courses', fields: ['password'] })).toMatch(/fields: course records have no field "password"/);
    expect(await refused('get_record', { id: 'xyz_123' })).toMatch(/not a record id; ids start with the area's prefix/);
  });

  it('creates, updates and deletes a coupon, each write visible over REST', async () => {
    const code = marker('SAVE').toUpperCase();
    const created = (await ok('create_record', { area: 'coupons', values: { code, percent_off: 15 } })).record as Row;
    expect(created).toMatchObject({ code, percent_off: 15, active: true, times_redeemed: 0 });
    expect((await ctx.owner('GET', `/coupons/${String(created.id)}`)).json).toEqual(created);

    const updated = await ok('update_record', { id: created.id, values: { percent_off: 20, valid_until: null } });
    expect(updated).toMatchObject({ dry_run: false, changed: ['percent_off'], record: { id: created.id, percent_off: 20 } });
    expect((await ctx.owner('GET', `/coupons/${String(created.id)}`)).json).toEqual(updated.record);

    expect(await ok('delete_record', { id: created.id })).toEqual({ dry_run: false, deleted: created.id });
    expect((await ctx.owner('GET', `/coupons/${String(created.id)}`)).status).toBe(404);
    expect(await refused('delete_record', { id: created.id })).toBe(`No coupon with id ${String(created.id)}`);
  });

  it('creates an enrollment that references a student and a course, and refuses a reference to nothing', async () => {
    const student = (await ok('create_record', { area: 'students', values: { name: 'Mia Tool', email: `${marker()}@school.test` } })).record as Row;
    const course = (await list('courses', { limit: 1 }))[0]!;
    const enrollment = (await ok('create_record', { area: 'enrollments', values: { student_id: student.id, course_id: course.id } })).record as Row;
    expect((await ctx.owner('GET', `/enrollments/${String(enrollment.id)}`)).json).toMatchObject({ student_id: student.id, course_id: course.id, progress_percent: 0 });
    expect(await refused('create_record', { area: 'enrollments', values: { student_id: 'stu_none', course_id: course.id } })).toBe('student_id: no student with id stu_none');
    // A student with an enrollment is deleted with it (cascade); the REST API agrees.
    await ok('delete_record', { id: student.id });
    expect((await ctx.owner('GET', `/enrollments/${String(enrollment.id)}`)).status).toBe(404);
  });

  it('refuses what the REST body refuses: a missing required field, a read-only one, a value past its max, a read-only area', async () => {
    expect(await refused('create_record', { area: 'courses', values: { summary: 'no title' } })).toMatch(/title: required/);
    expect(await refused('create_record', { area: 'courses', values: { title: 'x', summary: 'y'.repeat(501) } })).toMatch(/summary/);
    expect(await refused('create_record', { area: 'courses', values: { title: 'x', level: 'expert' } })).toMatch(/level/);
    // Orders come from checkouts: the writes do not take their area.
    expect(await refused('create_record', { area: 'orders', values: {} })).toMatch(/^area: Invalid option/);
  });

  describe('dry_run', () => {
    it('create: answers what would be stored and stores nothing', async () => {
      const before = await ctx.count('coupons');
      const code = marker('DRY').toUpperCase();
      const preview = await ok('create_record', { area: 'coupons', values: { code, amount_off_cents: 500 }, dry_run: true });
      expect(preview).toMatchObject({ dry_run: true, record: { code, amount_off_cents: 500, active: true } });
      expect(await ctx.count('coupons')).toBe(before);
      expect((await ctx.owner('GET', `/coupons/${String((preview.record as Row).id)}`)).status).toBe(404);
      expect((await ctx.owner('GET', `/coupons?code=${code}`)).data).toEqual([]);
    });

    it('create: a taken unique value and a reference to nothing fail as the real write fails', async () => {
      const coupon = (values: Row, dry = false) => refused('create_record', { area: 'coupons', values, dry_run: dry });
      const enroll = (values: Row, dry = false) => refused('create_record', { area: 'enrollments', values, dry_run: dry });
      const taken = (await ctx.owner('GET', '/coupons?limit=1')).data[0]!;
      const real = await coupon({ code: taken.code });
      expect(real).toBe('Another coupon already has this code');
      expect(await coupon({ code: taken.code }, true)).toBe(real);
      const course = (await ctx.owner('GET', '/courses?limit=1')).data[0]!;
      const missing = { student_id: 'stu_none', course_id: course.id };
      expect(await enroll(missing, true)).toBe(await enroll(missing));
      const enrolled = (await ctx.owner('GET', '/enrollments?limit=1')).data[0]!;
      const pair = { student_id: enrolled.student_id, course_id: enrolled.course_id };
      const realPair = await enroll(pair);
      expect(realPair).toBe('Another enrollment already has this student_id,course_id');
      expect(await enroll(pair, true)).toBe(realPair);
      expect(await coupon({ percent_off: 10 }, true)).toBe(await coupon({ percent_off: 10 }));
    });

    it('create: a title whose made-up slug is taken is no conflict, as the real write adds a suffix', async () => {
      const course = (await ctx.owner('GET', '/courses?limit=1')).data[0]!;
      const preview = await ok('create_record', { area: 'courses', values: { title: course.title }, dry_run: true });
      expect((preview.record as Row).slug).toBe(course.slug);
      expect(await refused('create_record', { area: 'courses', values: { title: 'Other', slug: course.slug }, dry_run: true })).toBe('Another course already has this slug');
      expect(await ok('update_record', { id: course.id, values: { slug: null }, dry_run: true })).toMatchObject({ changed: ['slug'], record: { slug: null } });
    });

    it('update: shows the change and what changed, and stores nothing; its errors are the real ones', async () => {
      const [a, b] = (await ctx.owner('GET', '/students?limit=2')).data;
      const preview = await ok('update_record', { id: a!.id, values: { name: 'Renamed Preview' }, dry_run: true });
      expect(preview).toMatchObject({ dry_run: true, changed: ['name'], record: { id: a!.id, name: 'Renamed Preview', email: a!.email } });
      expect((await ctx.owner('GET', `/students/${String(a!.id)}`)).json).toEqual(a);
      const clash = { id: a!.id, values: { email: String(b!.email).toUpperCase() } };
      const real = await refused('update_record', clash);
      expect(real).toBe('Another student already has this email');
      expect(await refused('update_record', { ...clash, dry_run: true })).toBe(real);
      expect(await ok('update_record', { id: a!.id, values: { email: a!.email }, dry_run: true })).toMatchObject({ changed: [] });
      expect(await refused('update_record', { id: 'stu_none', values: { name: 'x' }, dry_run: true })).toBe(await refused('update_record', { id: 'stu_none', values: { name: 'x' } }));
      expect(await refused('update_record', { id: a!.id, values: {}, dry_run: true })).toBe('values: give at least one field to change');
      expect((await ctx.owner('GET', `/students/${String(a!.id)}`)).json).toEqual(a);
    });

    it('delete: checks and deletes nothing; a record others still need is refused as the real delete is', async () => {
      const plan = (await ctx.owner('GET', '/membership-plans?limit=100')).data.find((p) => p.status === 'published')!;
      const subscribers = await ctx.owner('GET', `/subscriptions?plan_id=${String(plan.id)}`);
      expect(subscribers.data.length).toBeGreaterThan(0);
      const real = await refused('delete_record', { id: plan.id });
      expect(real).toMatch(/^This membership plan still has \d+ subscriptions; remove them first$/);
      expect(await refused('delete_record', { id: plan.id, dry_run: true })).toBe(real);
      const course = (await ok('create_record', { area: 'courses', values: { title: 'Doomed' } })).record as Row;
      const section = (await ok('create_record', { area: 'sections', values: { course_id: course.id, title: 'Part 1' } })).record as Row;
      expect(await ok('delete_record', { id: course.id, dry_run: true })).toEqual({ dry_run: true, deleted: course.id });
      expect((await ctx.owner('GET', `/courses/${String(course.id)}`)).status).toBe(200);
      await ok('delete_record', { id: course.id });
      expect((await ctx.owner('GET', `/curriculum/sections/${String(section.id)}`)).status).toBe(404);
    });
  });

  it('keeps every answer small: each area listed with default arguments answers at most 16 KiB', async () => {
    const areas = (schemaOf('list_records').properties.area as { enum: string[] }).enum;
    const sizes: [string, number][] = [];
    for (const area of areas) {
      const result = await call('list_records', { area });
      expect(result.isError ?? false, `${area}: ${JSON.stringify(result.content)}`).toBe(false);
      sizes.push([area, Buffer.byteLength(JSON.stringify(result))]);
    }
    sizes.sort((x, y) => y[1] - x[1]);
    expect(sizes[0]![1], sizes[0]![0]).toBeLessThanOrEqual(16 * 1024);
  });
});
