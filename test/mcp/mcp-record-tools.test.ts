/**
 * The tools generated for every area of the school: their names, scopes,
 * hints and output schemas, lists with filters, q, cursors and fields, the
 * write round trips checked over REST, and dry runs that write nothing and
 * fail exactly as the real write does. Calls go through the MCP SDK client
 * over real HTTP; it checks every structuredContent against the tool's
 * outputSchema once it has listed the tools.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/platform/demo/seed.ts';
import { parseChallenge } from '../helpers/bearer.ts';
import { mcpPost, toolCall } from '../helpers/mcp.ts';
import { ALL_SCOPES, marker, startRecordsServer, type RecordsServer } from '../helpers/records.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

type CallResult = { content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };
type Row = Record<string, unknown>;

/** Every area's tools by name, stated by hand: list_ and get_ for each, create_/update_/delete_ for the writable ones. */
const READ_TOOLS = [
  ['list_courses', 'get_course'],
  ['list_sections', 'get_curriculum_section'],
  ['list_lessons', 'get_lesson'],
  ['list_lecturers', 'get_lecturer'],
  ['list_students', 'get_student'],
  ['list_enrollments', 'get_enrollment'],
  ['list_members', 'get_team_member'],
  ['list_membership_plans', 'get_membership_plan'],
  ['list_subscriptions', 'get_subscription'],
  ['list_digital_products', 'get_digital_product'],
  ['list_coupons', 'get_coupon'],
  ['list_orders', 'get_order'],
  ['list_events', 'get_event'],
  ['list_event_attendees', 'get_event_attendee'],
  ['list_posts', 'get_post'],
  ['list_comments', 'get_comment'],
  ['list_forms', 'get_form'],
  ['list_form_submissions', 'get_form_submission'],
  ['list_pages', 'get_page'],
].flat();
const WRITABLE = ['course', 'curriculum_section', 'lesson', 'lecturer', 'student', 'enrollment', 'team_member', 'membership_plan', 'subscription', 'digital_product', 'coupon', 'event', 'event_attendee', 'post', 'page'];
const WRITE_TOOLS = WRITABLE.flatMap((n) => [`create_${n}`, `update_${n}`, `delete_${n}`]);
const OTHER_TOOLS = [
  'get_site_info',
  'get_school_settings',
  'update_school_settings',
  'get_appearance',
  'update_appearance',
  'publish_course',
  'get_school_summary',
  'get_analytics',
  'get_my_account',
  'list_my_enrollments',
  'list_my_lessons',
  'get_my_progress',
  'list_my_orders',
  'list_my_subscriptions',
  'update_my_account',
  'enroll_student_by_email',
  'get_enrollment_progress',
  'complete_lesson_for_student',
  'complete_my_lesson',
  'uncomplete_my_lesson',
  'list_webhooks',
  'create_webhook',
  'delete_webhook',
];

/** One tool per area with the scope a call needs, stated by hand; the catalog areas' list_ and get_ need none. */
const SCOPE_SAMPLES: [tool: string, args: Row, scope: string][] = [
  ['create_course', { title: 'x' }, 'courses:write'],
  ['list_sections', {}, 'curriculum:read'],
  ['update_lesson', { id: 'les_x', title: 'x' }, 'curriculum:write'],
  ['delete_lecturer', { id: 'lec_x' }, 'lecturers:write'],
  ['list_students', {}, 'students:read'],
  ['get_enrollment', { id: 'enr_x' }, 'students:read'],
  ['list_members', {}, 'members:read'],
  ['create_membership_plan', { name: 'x' }, 'membership_plans:write'],
  ['list_subscriptions', {}, 'subscriptions:read'],
  ['update_digital_product', { id: 'prd_x', name: 'x' }, 'digital_products:write'],
  ['list_coupons', {}, 'coupons:read'],
  ['get_order', { id: 'ord_x' }, 'orders:read'],
  ['delete_event', { id: 'evt_x' }, 'events:write'],
  ['list_event_attendees', {}, 'events:read'],
  ['create_post', { title: 'x' }, 'posts:write'],
  ['list_comments', {}, 'comments:read'],
  ['list_forms', {}, 'forms:read'],
  ['get_form_submission', { id: 'fsb_x' }, 'forms:read'],
  ['update_page', { id: 'pag_x', title: 'x' }, 'pages:write'],
  ['update_school_settings', { name: 'x' }, 'school:write'],
  ['update_appearance', { theme: 'dark' }, 'appearance:write'],
  ['publish_course', { id: 'crs_x' }, 'courses:write'],
  ['get_school_summary', {}, 'courses:read students:read orders:read events:read'],
];

/** The anonymous REST path of each public area's list tool. */
const PUBLIC_LISTS: [tool: string, path: string][] = [
  ['list_courses', '/courses'],
  ['list_lecturers', '/lecturers'],
  ['list_membership_plans', '/membership-plans'],
  ['list_digital_products', '/digital-products'],
  ['list_events', '/events'],
  ['list_posts', '/posts'],
  ['list_pages', '/pages'],
];

describe.each(STORE_KINDS)('MCP tools for every area (%s)', (kind) => {
  let ctx: RecordsServer;
  let staff: Client;
  let tools: Awaited<ReturnType<Client['listTools']>>['tools'];

  async function connect(token?: string): Promise<Client> {
    const client = new Client({ name: 'record-tools-test', version: '1.0.0' });
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    await client.connect(new StreamableHTTPClientTransport(new URL(`${ctx.server.issuer}/mcp`), { requestInit: { headers } }));
    // Listing the tools makes the client check every later structuredContent against its outputSchema.
    await client.listTools();
    return client;
  }

  beforeAll(async () => {
    ctx = await startRecordsServer(kind);
    await seedDemo(ctx.server.deps.store);
    staff = await connect(await ctx.token(ALL_SCOPES));
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
    expect(result.content.filter((c) => c.type === 'text'), name).toHaveLength(1);
    return result.structuredContent!;
  }

  /** A tool error: the text the caller reads. */
  async function refused(name: string, args: Row): Promise<string> {
    const result = await call(name, args);
    expect(result.isError, `${name} should fail: ${JSON.stringify(result.structuredContent)}`).toBe(true);
    return result.content[0]!.text!;
  }

  const ids = (rows: unknown) => (rows as Row[]).map((r) => r.id);

  it('lists list_ and get_ for every area, and create_, update_ and delete_ exactly for the writable ones', () => {
    expect(tools.map((t) => t.name).sort()).toEqual([...READ_TOOLS, ...WRITE_TOOLS, ...OTHER_TOOLS].sort());
  });

  it('titles read as English: "an" before a vowel', () => {
    const titles = Object.fromEntries(tools.map((t) => [t.name, t.title]));
    expect(titles).toMatchObject({ update_event: 'Change an event', get_order: 'Get an order', delete_enrollment: 'Delete an enrollment', create_event_attendee: 'Create an event attendee', get_course: 'Get a course' });
    expect(tools.filter((t) => /\ba [aeiou]/i.test(`${t.title} ${t.description}`)).map((t) => t.name)).toEqual([]);
  });

  it('gives every tool an outputSchema and the hints its kind calls for', () => {
    for (const tool of tools) {
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      const kind = tool.name.split('_')[0];
      const write = ['create', 'update', 'delete', 'publish', 'enroll', 'complete', 'uncomplete'].includes(kind!);
      expect(tool.annotations, tool.name).toEqual({
        readOnlyHint: !write,
        destructiveHint: kind === 'delete',
        idempotentHint: kind !== 'create',
        openWorldHint: false,
      });
      // Marking a lesson is undone by its counterpart; there is nothing to preview.
      const noDryRun = ['update_my_account', 'complete_lesson_for_student', 'complete_my_lesson', 'uncomplete_my_lesson'];
      if (write && !noDryRun.includes(tool.name)) expect(tool.inputSchema.properties, tool.name).toHaveProperty('dry_run');
    }
  });

  it('derives inputs from the field declarations: required, read-only, enum and max', () => {
    const create = tools.find((t) => t.name === 'create_course')!.inputSchema as { properties: Record<string, Row>; required?: string[] };
    expect(create.required).toEqual(['title']);
    // An optional field may be null, which clears it, as in the REST body.
    expect(create.properties.level).toEqual({ anyOf: [{ type: 'string', enum: ['beginner', 'intermediate', 'advanced'] }, { type: 'null' }], description: 'Level' });
    expect(create.properties.title).toEqual({ type: 'string', minLength: 1, maxLength: 200, description: 'Title' });
    expect(create.properties.summary).toMatchObject({ anyOf: [{ maxLength: 500 }, { type: 'null' }] });
    expect(create.properties.price_cents).toMatchObject({ anyOf: [{ type: 'integer', minimum: 0, maximum: 100_000_000 }, { type: 'null' }] });
    const lesson = tools.find((t) => t.name === 'create_lesson')!.inputSchema as { properties: Record<string, Row> };
    // A lesson's course comes from its section: the server sets it.
    expect(lesson.properties).not.toHaveProperty('course_id');
    const update = tools.find((t) => t.name === 'update_course')!.inputSchema as { required?: string[] };
    expect(update.required).toEqual(['id']);
    const list = tools.find((t) => t.name === 'list_students')!.inputSchema as { properties: Record<string, Row> };
    expect(Object.keys(list.properties).sort()).toEqual(['cursor', 'email', 'fields', 'limit', 'pseudonymize', 'q', 'status']);
    expect(list.properties.limit).toMatchObject({ default: 10, maximum: 50 });
    // No search field, no q.
    expect(tools.find((t) => t.name === 'list_orders')!.inputSchema.properties).not.toHaveProperty('q');
  });

  it('names the scope in the description of scoped tools, and says the public lists need none', () => {
    for (const [tool, , scope] of SCOPE_SAMPLES) {
      const description = tools.find((t) => t.name === tool)!.description!;
      expect(description, tool).toContain(`(scope: ${scope})`);
      // Named once, by the server: a description does not repeat it.
      expect(description.split(scope.split(' ')[0]!).length - 1, tool).toBe(1);
    }
    for (const [tool] of PUBLIC_LISTS) {
      const description = tools.find((t) => t.name === tool)!.description!;
      expect(description, tool).toMatch(/No scope needed/);
      expect(description, tool).not.toContain('(scope:');
    }
  });

  it('refuses a call without its scope with HTTP 403 naming every scope it needs, and an anonymous one with 401', async () => {
    const narrow = await ctx.token('account:read');
    for (const [tool, args, scope] of SCOPE_SAMPLES) {
      const forbidden = await mcpPost(ctx.server.issuer, toolCall(tool, args), { authorization: `Bearer ${narrow}` });
      expect({ status: forbidden.status, body: forbidden.json }, tool).toEqual({ status: 403, body: { error: 'insufficient_scope', error_description: expect.stringMatching(/\S/) } });
      expect(parseChallenge(forbidden.headers.get('www-authenticate')).params.scope, tool).toBe(scope);
      const anonymous = await mcpPost(ctx.server.issuer, toolCall(tool, args));
      expect({ status: anonymous.status, error: (anonymous.json as Row).error }, tool).toEqual({ status: 401, error: 'invalid_request' });
    }
  });

  it('serves the public lists to anonymous callers and narrow tokens as the anonymous REST list does', async () => {
    const anonymous = await connect();
    const narrow = await connect(await ctx.token('account:read'));
    try {
      for (const [tool, path] of PUBLIC_LISTS) {
        const rest = await ctx.anonymous('GET', `${path}?limit=10`);
        expect(rest.status, tool).toBe(200);
        for (const client of [anonymous, narrow]) {
          const key = tool.slice('list_'.length);
          const structured = await ok(tool, {}, client);
          expect(ids(structured[key]), tool).toEqual(ids(rest.data));
          expect(structured.next_cursor, tool).toBe(rest.json.next_cursor);
        }
      }
      const course = (await ctx.anonymous('GET', '/courses?limit=1')).data[0]!;
      expect((await ok('get_course', { id: course.id }, anonymous)).course).toEqual(course);
    } finally {
      await anonymous.close();
      await narrow.close();
    }
  });

  it('filters, searches and pages as GET /api/v1 does, 10 records by default', async () => {
    const cases: [Row, string][] = [
      [{}, ''],
      [{ status: 'draft' }, 'status=draft'],
      [{ level: 'advanced', language: 'en' }, 'level=advanced&language=en'],
      [{ q: 'python' }, 'q=python'],
    ];
    for (const [args, query] of cases) {
      const rest = await ctx.owner('GET', `/courses?limit=10&${query}`);
      expect(ids((await ok('list_courses', args)).courses), query).toEqual(ids(rest.data));
    }
    const students = await ctx.owner('GET', '/students?limit=100');
    expect(students.data.length).toBeGreaterThan(10);
    const seen: unknown[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 20; page++) {
      const structured = await ok('list_students', { limit: 7, ...(cursor ? { cursor } : {}) });
      expect((structured.students as Row[]).length).toBeLessThanOrEqual(7);
      seen.push(...ids(structured.students));
      cursor = structured.next_cursor as string | undefined;
      if (!cursor) break;
    }
    expect(seen).toEqual(ids(students.data));
    expect(((await ok('list_students')).students as Row[]).length).toBe(10);
    const one = students.data[3]!;
    expect(ids((await ok('list_students', { email: String(one.email).toUpperCase() })).students)).toEqual([one.id]);
    expect(await refused('list_students', { status: 'gone' })).toMatch(/status/);
    expect(await refused('list_students', { limit: 51 })).toMatch(/limit/);
  });

  it('leaves long text out of lists unless fields names it, and answers only the fields asked for', async () => {
    const listed = (await ok('list_courses')).courses as Row[];
    expect(listed[0]).not.toHaveProperty('description');
    expect(listed[0]).toHaveProperty('summary');
    const chosen = (await ok('list_courses', { fields: ['title', 'description'] })).courses as Row[];
    for (const c of chosen) expect(Object.keys(c).sort()).toEqual(['description', 'id', 'title']);
    const full = await ctx.owner('GET', `/courses/${String(listed[0]!.id)}`);
    expect((await ok('get_course', { id: listed[0]!.id })).course).toEqual(full.json);
    const lecturer = (await ctx.owner('GET', '/lecturers?limit=1')).data[0]!;
    expect((await ok('get_lecturer', { id: lecturer.id, fields: ['email'] })).lecturer).toEqual({ id: lecturer.id, email: lecturer.email });
    expect(await refused('list_courses', { fields: ['password'] })).toMatch(/fields/);
  });

  it('creates, updates and deletes a coupon, each write visible over REST', async () => {
    const code = marker('SAVE').toUpperCase();
    const created = (await ok('create_coupon', { code, percent_off: 15 })).coupon as Row;
    expect(created).toMatchObject({ code, percent_off: 15, active: true, times_redeemed: 0 });
    expect((await ctx.owner('GET', `/coupons/${String(created.id)}`)).json).toEqual(created);

    const updated = await ok('update_coupon', { id: created.id, percent_off: 20, valid_until: null });
    expect(updated).toMatchObject({ dry_run: false, changed: ['percent_off'], coupon: { id: created.id, percent_off: 20 } });
    expect((await ctx.owner('GET', `/coupons/${String(created.id)}`)).json).toEqual(updated.coupon);

    expect(await ok('delete_coupon', { id: created.id })).toEqual({ dry_run: false, deleted: created.id });
    expect((await ctx.owner('GET', `/coupons/${String(created.id)}`)).status).toBe(404);
    expect(await refused('delete_coupon', { id: created.id })).toBe(`No coupon with id ${String(created.id)}`);
  });

  it('creates an enrollment that references a student and a course, and refuses a reference to nothing', async () => {
    const student = (await ok('create_student', { name: 'Mia Tool', email: `${marker()}@school.test` })).student as Row;
    const course = ((await ok('list_courses', { limit: 1 })).courses as Row[])[0]!;
    const enrollment = (await ok('create_enrollment', { student_id: student.id, course_id: course.id })).enrollment as Row;
    expect((await ctx.owner('GET', `/enrollments/${String(enrollment.id)}`)).json).toMatchObject({ student_id: student.id, course_id: course.id, progress_percent: 0 });
    expect(await refused('create_enrollment', { student_id: 'stu_none', course_id: course.id })).toBe('student_id: no student with id stu_none');
    // A student with an enrollment is deleted with it (cascade); the REST API agrees.
    await ok('delete_student', { id: student.id });
    expect((await ctx.owner('GET', `/enrollments/${String(enrollment.id)}`)).status).toBe(404);
  });

  it('refuses what the REST body refuses: a missing required field, a read-only one, a value past its max', async () => {
    expect(await refused('create_course', { summary: 'no title' })).toMatch(/title/);
    expect(await refused('create_course', { title: 'x', summary: 'y'.repeat(501) })).toMatch(/summary/);
    expect(await refused('create_course', { title: 'x', level: 'expert' })).toMatch(/level/);
    const lesson = (await ctx.owner('GET', '/curriculum/lessons?limit=1')).data[0]!;
    // An unknown (here server-set) field is not part of the input: it is ignored, never stored.
    const after = await ok('update_lesson', { id: lesson.id, title: String(lesson.title), course_id: 'crs_other', dry_run: true });
    expect((after.lesson as Row).course_id).toBe(lesson.course_id);
  });

  describe('dry_run', () => {
    it('create: answers what would be stored and stores nothing', async () => {
      const before = await ctx.count('coupons');
      const code = marker('DRY').toUpperCase();
      const preview = await ok('create_coupon', { code, amount_off_cents: 500, dry_run: true });
      expect(preview).toMatchObject({ dry_run: true, coupon: { code, amount_off_cents: 500, active: true } });
      expect(await ctx.count('coupons')).toBe(before);
      expect((await ctx.owner('GET', `/coupons/${String((preview.coupon as Row).id)}`)).status).toBe(404);
      expect((await ctx.owner('GET', `/coupons?code=${code}`)).data).toEqual([]);
    });

    it('create: a taken unique value and a reference to nothing fail as the real write fails', async () => {
      const taken = (await ctx.owner('GET', '/coupons?limit=1')).data[0]!;
      const real = await refused('create_coupon', { code: taken.code });
      expect(real).toBe('Another coupon already has this code');
      expect(await refused('create_coupon', { code: taken.code, dry_run: true })).toBe(real);
      const course = (await ctx.owner('GET', '/courses?limit=1')).data[0]!;
      const missing = { student_id: 'stu_none', course_id: course.id };
      expect(await refused('create_enrollment', { ...missing, dry_run: true })).toBe(await refused('create_enrollment', missing));
      // A pair already enrolled, as the unique pair of enrollments.
      const enrolled = (await ctx.owner('GET', '/enrollments?limit=1')).data[0]!;
      const pair = { student_id: enrolled.student_id, course_id: enrolled.course_id };
      const realPair = await refused('create_enrollment', pair);
      expect(realPair).toBe('Another enrollment already has this student_id,course_id');
      expect(await refused('create_enrollment', { ...pair, dry_run: true })).toBe(realPair);
      // Input validation is the same code path too.
      expect(await refused('create_coupon', { percent_off: 10, dry_run: true })).toBe(await refused('create_coupon', { percent_off: 10 }));
    });

    it('create: a title whose made-up slug is taken is no conflict, as the real write adds a suffix', async () => {
      const course = (await ctx.owner('GET', '/courses?limit=1')).data[0]!;
      const preview = await ok('create_course', { title: course.title, dry_run: true });
      expect((preview.course as Row).slug).toBe(course.slug);
      expect(await refused('create_course', { title: 'Other', slug: course.slug, dry_run: true })).toBe('Another course already has this slug');
      // A cleared unique value matches no other record's, as in the unique index.
      expect(await ok('update_course', { id: course.id, slug: null, dry_run: true })).toMatchObject({ changed: ['slug'], course: { slug: null } });
    });

    it('update: shows the change and what changed, and stores nothing; its errors are the real ones', async () => {
      const [a, b] = (await ctx.owner('GET', '/students?limit=2')).data;
      const preview = await ok('update_student', { id: a!.id, name: 'Renamed Preview', dry_run: true });
      expect(preview).toMatchObject({ dry_run: true, changed: ['name'], student: { id: a!.id, name: 'Renamed Preview', email: a!.email } });
      expect((await ctx.owner('GET', `/students/${String(a!.id)}`)).json).toEqual(a);

      const clash = { id: a!.id, email: String(b!.email).toUpperCase() };
      const real = await refused('update_student', clash);
      expect(real).toBe('Another student already has this email');
      expect(await refused('update_student', { ...clash, dry_run: true })).toBe(real);
      // Its own email is no clash.
      expect(await ok('update_student', { id: a!.id, email: a!.email, dry_run: true })).toMatchObject({ changed: [] });
      expect(await refused('update_student', { id: 'stu_none', name: 'x', dry_run: true })).toBe(await refused('update_student', { id: 'stu_none', name: 'x' }));
      expect(await refused('update_student', { id: a!.id, dry_run: true })).toBe('Give at least one field to change');
      expect((await ctx.owner('GET', `/students/${String(a!.id)}`)).json).toEqual(a);
    });

    it('update: one column of a unique pair changed to a taken pair fails as the real write fails', async () => {
      const enrollments = (await ctx.owner('GET', '/enrollments?limit=100')).data;
      const a = enrollments.find((e) => enrollments.some((o) => o.course_id === e.course_id && o.student_id !== e.student_id))!;
      const b = enrollments.find((o) => o.course_id === a.course_id && o.student_id !== a.student_id)!;
      const clash = { id: a.id, student_id: b.student_id };
      const real = await refused('update_enrollment', clash);
      expect(real).toBe('Another enrollment already has this student_id,course_id');
      expect(await refused('update_enrollment', { ...clash, dry_run: true })).toBe(real);
      expect((await ctx.owner('GET', `/enrollments/${String(a.id)}`)).json).toEqual(a);
    });

    it('delete: checks and deletes nothing; a record others still need is refused as the real delete is', async () => {
      const plan = (await ctx.owner('GET', '/membership-plans?limit=100')).data.find((p) => p.status === 'published')!;
      const subscribers = await ctx.owner('GET', `/subscriptions?plan_id=${String(plan.id)}`);
      expect(subscribers.data.length).toBeGreaterThan(0);
      const real = await refused('delete_membership_plan', { id: plan.id });
      expect(real).toMatch(/^This membership plan still has \d+ subscriptions; remove them first$/);
      expect(await refused('delete_membership_plan', { id: plan.id, dry_run: true })).toBe(real);

      const course = (await ok('create_course', { title: 'Doomed' })).course as Row;
      const section = (await ok('create_curriculum_section', { course_id: course.id, title: 'Part 1' })).curriculum_section as Row;
      expect(await ok('delete_course', { id: course.id, dry_run: true })).toEqual({ dry_run: true, deleted: course.id });
      expect((await ctx.owner('GET', `/courses/${String(course.id)}`)).status).toBe(200);
      expect((await ctx.owner('GET', `/curriculum/sections/${String(section.id)}`)).status).toBe(200);
      await ok('delete_course', { id: course.id });
      expect((await ctx.owner('GET', `/curriculum/sections/${String(section.id)}`)).status).toBe(404);
    });
  });

  it('keeps every list small: each list tool with default arguments answers at most 16 KiB', async () => {
    const sizes: [string, number][] = [];
    for (const tool of tools.filter((t) => t.name.startsWith('list_') && !t.name.startsWith('list_my_'))) {
      const result = await call(tool.name);
      expect(result.isError ?? false, `${tool.name}: ${JSON.stringify(result.content)}`).toBe(false);
      sizes.push([tool.name, Buffer.byteLength(JSON.stringify(result))]);
    }
    sizes.sort((x, y) => y[1] - x[1]);
    const started = performance.now();
    const listing = await staff.listTools();
    console.log(`tools/list: ${listing.tools.length} tools, ${Buffer.byteLength(JSON.stringify(listing))} bytes, ${Math.round(performance.now() - started)} ms`);
    console.log(`largest default list answers (bytes): ${sizes.slice(0, 3).map(([n, b]) => `${n} ${b}`).join(', ')}`);
    expect(sizes[0]![1], sizes[0]![0]).toBeLessThanOrEqual(16 * 1024);
  });
});
