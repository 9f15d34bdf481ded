/**
 * The MCP tools beyond one record: publish_course and its curriculum check,
 * get_school_summary against the REST API's records, and the school settings
 * and appearance tools with the checks and views of their REST routes.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/demo/seed.ts';
import { ALL_SCOPES, allScopesBut, startRecordsServer, type RecordsServer } from '../helpers/records.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

type CallResult = { content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };
type Row = Record<string, unknown>;

describe.each(STORE_KINDS)('MCP task and settings tools (%s)', (kind) => {
  let ctx: RecordsServer;
  let staff: Client;
  let anonymous: Client;

  async function connect(token?: string): Promise<Client> {
    const client = new Client({ name: 'task-tools-test', version: '1.0.0' });
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    await client.connect(new StreamableHTTPClientTransport(new URL(`${ctx.server.issuer}/mcp`), { requestInit: { headers } }));
    // From here on the client checks each structuredContent against the tool's outputSchema.
    await client.listTools();
    return client;
  }

  beforeAll(async () => {
    ctx = await startRecordsServer(kind);
    await seedDemo(ctx.server.deps.store);
    staff = await connect(await ctx.token(ALL_SCOPES));
    anonymous = await connect();
  });
  afterAll(async () => {
    await staff?.close();
    await anonymous?.close();
    await ctx?.server.stop();
  });

  const call = async (name: string, args: Row = {}, client = staff) => (await client.callTool({ name, arguments: args })) as CallResult;
  async function ok(name: string, args: Row = {}, client = staff): Promise<Row> {
    const result = await call(name, args, client);
    expect(result.isError ?? false, `${name}: ${JSON.stringify(result.content)}`).toBe(false);
    return result.structuredContent!;
  }
  async function refused(name: string, args: Row, client = staff): Promise<string> {
    const result = await call(name, args, client);
    expect(result.isError, `${name} should fail`).toBe(true);
    return result.content[0]!.text!;
  }
  const statusOf = async (id: unknown) => (await ctx.owner('GET', `/courses/${String(id)}`)).json.status;

  describe('publish_course', () => {
    it('refuses a course without a section, naming what is missing, and changes nothing', async () => {
      const course = (await ok('create_record', { area: 'courses', values: { title: 'Empty Course' } })).record as Row;
      const message = await refused('publish_course', { id: course.id });
      expect(message).toBe('"Empty Course" has no curriculum yet: add a section with at least one lesson (create_record with area sections, then lessons) before publishing it');
      expect(await refused('publish_course', { id: course.id, dry_run: true })).toBe(message);
      expect(await statusOf(course.id)).toBe('draft');
    });

    it('refuses a course whose sections have no lesson, naming the sections', async () => {
      const course = (await ok('create_record', { area: 'courses', values: { title: 'Hollow Course' } })).record as Row;
      await ok('create_record', { area: 'sections', values: { course_id: course.id, title: 'Week 1', position: 0 } });
      await ok('create_record', { area: 'sections', values: { course_id: course.id, title: 'Week 2', position: 1 } });
      expect(await refused('publish_course', { id: course.id })).toBe(
        '"Hollow Course" has no lesson yet: its sections ("Week 1", "Week 2") are empty; add at least one lesson (create_record with area lessons) before publishing it',
      );
      expect(await statusOf(course.id)).toBe('draft');
    });

    it('publishes a course with a lesson: a dry run first changes nothing, then the real one does', async () => {
      const course = (await ok('create_record', { area: 'courses', values: { title: 'Ready Course' } })).record as Row;
      const section = (await ok('create_record', { area: 'sections', values: { course_id: course.id, title: 'Start' } })).record as Row;
      await ok('create_record', { area: 'sections', values: { course_id: course.id, title: 'Later' } });
      await ok('create_record', { area: 'lessons', values: { section_id: section.id, title: 'Hello' } });
      const preview = await ok('publish_course', { id: course.id, dry_run: true });
      expect(preview).toMatchObject({ dry_run: true, course: { id: course.id, status: 'published' }, sections: 2, lessons: 1 });
      expect(await statusOf(course.id)).toBe('draft');
      expect((await ctx.anonymous('GET', `/courses/${String(course.id)}`)).status).toBe(404);
      expect(await ok('publish_course', { id: course.id })).toMatchObject({ dry_run: false, course: { id: course.id, status: 'published' } });
      expect((await ctx.anonymous('GET', `/courses/${String(course.id)}`)).json.status).toBe('published');
    });

    it('refuses an unknown course as not found', async () => {
      expect(await refused('publish_course', { id: 'crs_none' })).toBe('No course with id crs_none');
    });
  });

  describe('get_school_summary', () => {
    it('counts what the REST API lists', async () => {
      const all = async (path: string) => {
        const rows: Row[] = [];
        let cursor: string | undefined;
        do {
          const res = await ctx.owner('GET', `${path}${path.includes('?') ? '&' : '?'}limit=100${cursor ? `&cursor=${cursor}` : ''}`);
          expect(res.status, path).toBe(200);
          rows.push(...res.data);
          cursor = res.json.next_cursor as string | undefined;
        } while (cursor);
        return rows;
      };
      const summary = await ok('get_school_summary');
      const courses = await all('/courses');
      const month = new Date().toISOString().slice(0, 7);
      const paid = (await all('/orders?status=paid')).filter((o) => String(o.paid_at).slice(0, 7) === month);
      const upcoming = (await all('/events?status=published')).filter((e) => Date.parse(String(e.starts_at)) >= Date.now());
      expect(summary).toEqual({
        month,
        currency: (await ctx.owner('GET', '/school')).json.currency,
        courses: {
          draft: courses.filter((c) => c.status === 'draft').length,
          published: courses.filter((c) => c.status === 'published').length,
          archived: courses.filter((c) => c.status === 'archived').length,
        },
        students: (await all('/students')).length,
        enrollments: (await all('/enrollments')).length,
        orders_paid_this_month: paid.length,
        revenue_this_month_cents: paid.reduce((sum, o) => sum + Number(o.total_cents), 0),
        upcoming_events: upcoming.length,
      });
      expect(summary.students).toBeGreaterThan(0);
    });

    it('is refused to a token without one of the four read scopes it needs', async () => {
      const narrow = await connect(await ctx.token(allScopesBut('events:read')));
      try {
        // The SDK client reads the 403 as an error of the call.
        await expect(narrow.callTool({ name: 'get_school_summary', arguments: {} })).rejects.toThrow(/403|insufficient_scope/);
      } finally {
        await narrow.close();
      }
    });
  });

  describe('school settings and appearance', () => {
    it('get_school_settings: the public fields for anyone, everything with school:read, as GET /api/v1/school', async () => {
      expect(await ok('get_school_settings', {}, anonymous)).toEqual((await ctx.anonymous('GET', '/school')).json);
      expect(Object.keys(await ok('get_school_settings', {}, anonymous)).sort()).toEqual(['currency', 'description', 'locale', 'name', 'timezone', 'website']);
      expect(await ok('get_school_settings')).toEqual((await ctx.owner('GET', '/school')).json);
    });

    it("update_school_settings: a dry run stores nothing; the checks and their words are the REST route's", async () => {
      const before = (await ctx.owner('GET', '/school')).json;
      const preview = await ok('update_school_settings', { locale: 'pt-br', contact_email: null, dry_run: true });
      expect(preview).toMatchObject({ dry_run: true, locale: 'pt-BR', contact_email: null, name: before.name });
      expect((await ctx.owner('GET', '/school')).json).toEqual(before);

      const rest = await ctx.owner('PATCH', '/school', { timezone: 'Mars/Olympus' });
      expect(rest.status).toBe(400);
      expect(await refused('update_school_settings', { timezone: 'Mars/Olympus', dry_run: true })).toBe(rest.json.error_description);
      expect(await refused('update_school_settings', { timezone: 'Mars/Olympus' })).toBe(rest.json.error_description);
      expect(await refused('update_school_settings', { currency: 'euro' })).toMatch(/currency/);

      const saved = await ok('update_school_settings', { timezone: 'Europe/Paris' });
      expect(saved).toMatchObject({ dry_run: false, timezone: 'Europe/Paris' });
      expect((await ctx.owner('GET', '/school')).json.timezone).toBe('Europe/Paris');
    });

    it("get_appearance and update_appearance: public reads, a dry run that stores nothing, the route's checks", async () => {
      const before = (await ctx.anonymous('GET', '/appearance')).json;
      expect(await ok('get_appearance', {}, anonymous)).toEqual(before);
      expect(await ok('update_appearance', { primary_color: '#abcdef', dry_run: true })).toMatchObject({ dry_run: true, primary_color: '#ABCDEF' });
      expect((await ctx.anonymous('GET', '/appearance')).json).toEqual(before);
      const rest = await ctx.owner('PATCH', '/appearance', { logo_file_id: 'fil_none' });
      expect(await refused('update_appearance', { logo_file_id: 'fil_none', dry_run: true })).toBe(rest.json.error_description);
      expect(await ok('update_appearance', { theme: 'dark' })).toMatchObject({ dry_run: false, theme: 'dark' });
      expect((await ctx.anonymous('GET', '/appearance')).json.theme).toBe('dark');
    });
  });
});
