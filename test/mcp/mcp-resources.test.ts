import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AREAS } from '../../src/platform/areas.ts';
import { obtainTokens, startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { insertRecord, mcpPost, rpc, seedSchool, type Seeded } from '../helpers/mcp.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

/** Every area of the platform, by hand: one data-model resource each. */
const AREA_NAMES = [
  'courses',
  'sections',
  'lessons',
  'lecturers',
  'students',
  'enrollments',
  'members',
  'membership_plans',
  'subscriptions',
  'digital_products',
  'coupons',
  'orders',
  'events',
  'event_attendees',
  'posts',
  'comments',
  'forms',
  'form_submissions',
  'pages',
];

/** The published courses seedSchool writes, in creation order. */
const PUBLISHED_TITLES = ['Intro to Algebra', 'Advanced Calculus', 'Geometry in French', 'Number Theory', 'Probability Basics'];

const COURSE_TEMPLATE = {
  name: 'course',
  uriTemplate: 'lyceum://courses/{id}',
  title: 'Published course',
  description: 'A published course with its lecturers and curriculum outline, as the anonymous REST API and the get_course tool show it.',
  mimeType: 'application/json',
};

const OPENAPI_PART_TEMPLATE = {
  name: 'openapi_part',
  uriTemplate: 'lyceum://openapi/{part}',
  title: 'OpenAPI document: one part',
  description: 'The operations of one area of the HTTP API, with their parameters, bodies, answers and scopes, as a standalone OpenAPI 3.1.0 document.',
  mimeType: 'application/json',
};

type Contents = { uri: string; mimeType?: string; text?: string }[];

describe.each(STORE_KINDS)('MCP resources, prompts, completion and logging (%s)', (kind) => {
  let server: FlowServer;
  let seeded: Seeded;
  let client: Client;

  async function connect(authorization?: string): Promise<Client> {
    const c = new Client({ name: 'lyceum-resources-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${server.issuer}/mcp`), authorization ? { requestInit: { headers: { authorization } } } : {});
    await c.connect(transport);
    return c;
  }

  beforeAll(async () => {
    server = await startFlowServer(kind);
    seeded = await seedSchool(server);
    client = await connect();
  });
  afterAll(async () => {
    await client?.close();
    await server?.stop();
  });

  const courseUri = (id: string) => `lyceum://courses/${id}`;

  /** The one content item of a resources/read. */
  async function read(uri: string, c: Client = client): Promise<{ uri: string; mimeType?: string; text: string }> {
    const { contents } = (await c.readResource({ uri })) as { contents: Contents };
    expect(contents, uri).toHaveLength(1);
    expect(typeof contents[0]!.text, uri).toBe('string');
    return contents[0] as { uri: string; mimeType?: string; text: string };
  }

  /** The JSON-RPC error a request is answered with. */
  async function rpcError(work: Promise<unknown>): Promise<{ code: number; message: string }> {
    const err = await work.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(McpError);
    return { code: (err as McpError).code, message: (err as McpError).message };
  }

  async function complete(ref: { type: 'ref/resource'; uri: string } | { type: 'ref/prompt'; name: string }, name: string, value: string) {
    return (await client.complete({ ref, argument: { name, value } })).completion;
  }

  it('initialize declares resources and prompts without subscriptions or list changes, completions and logging', () => {
    expect(client.getServerCapabilities()).toEqual({
      logging: {},
      completions: {},
      tools: { listChanged: false },
      resources: { subscribe: false, listChanged: false },
      prompts: { listChanged: false },
    });
  });

  describe('resources', () => {
    it('resources/list: the data model per area, the OpenAPI index, auth.md, the OpenAPI parts, then the published courses', async () => {
      const { resources } = await client.listResources();
      const schemas = AREA_NAMES.map((a) => `lyceum://schema/${a}`);
      const parts = resources.filter((r) => r.uri.startsWith('lyceum://openapi/')).map((r) => r.uri);
      expect(parts).toEqual(expect.arrayContaining(['lyceum://openapi/courses', 'lyceum://openapi/oauth', 'lyceum://openapi/account']));
      expect(resources.map((r) => r.uri)).toEqual([...schemas, 'lyceum://openapi', 'lyceum://auth.md', ...parts, ...seeded.courses.published.map(courseUri)]);
      expect(resources[0]).toEqual({
        uri: 'lyceum://schema/courses',
        name: 'schema_courses',
        title: 'Data model: course',
        description: 'JSON Schema of the course records, with which of their fields are public.',
        mimeType: 'application/schema+json',
      });
      expect(resources.find((r) => r.uri === 'lyceum://openapi')).toMatchObject({ name: 'openapi', title: 'OpenAPI document: index', mimeType: 'application/json' });
      expect(resources.find((r) => r.uri === 'lyceum://openapi/courses')).toEqual({
        uri: 'lyceum://openapi/courses',
        name: 'openapi_courses',
        title: 'OpenAPI: courses',
        description: 'The 5 courses operations of the HTTP API as a standalone OpenAPI 3.1.0 document.',
        mimeType: 'application/json',
      });
      expect(resources.find((r) => r.uri === 'lyceum://auth.md')).toMatchObject({ name: 'auth_md', title: 'auth.md', mimeType: 'text/markdown' });
      const courses = resources.slice(schemas.length + 2 + parts.length);
      expect(courses).toEqual(PUBLISHED_TITLES.map((title, i) => ({ uri: courseUri(seeded.courses.published[i]!), name: title, title, description: `About ${title}`, mimeType: 'application/json' })));
      expect(JSON.stringify(resources)).not.toContain(seeded.draftWord);
    });

    it('resources/templates/list: lyceum://openapi/{part} and lyceum://courses/{id}', async () => {
      expect((await client.listResourceTemplates()).resourceTemplates).toEqual([OPENAPI_PART_TEMPLATE, COURSE_TEMPLATE]);
    });

    it('reads the data model of a public area as JSON Schema 2020-12, optional fields that may be null', async () => {
      const content = await read('lyceum://schema/courses');
      expect(content.mimeType).toBe('application/schema+json');
      const schema = JSON.parse(content.text) as Record<string, unknown> & { properties: Record<string, Record<string, unknown>> };
      expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(schema.$id).toBe('lyceum://schema/courses');
      expect(schema.title).toBe('course');
      expect(schema.type).toBe('object');
      expect(schema.description).toBe(
        'One course as GET /api/v1/courses/{id} returns it. Anyone may read the published ones; callers without courses:read see only the fields id, title, slug, summary, description, level, language, price_cents, lecturer_ids, status, created_at, updated_at.',
      );
      expect(Object.keys(schema.properties)).toEqual(['id', 'title', 'slug', 'summary', 'description', 'level', 'language', 'price_cents', 'lecturer_ids', 'status', 'created_at', 'updated_at']);
      expect(schema.properties.title).toEqual({ description: 'Title', type: 'string', minLength: 1, maxLength: 200 });
      expect(schema.properties.slug).toEqual({ description: 'URL name, unique; made from the title when absent', anyOf: [{ type: 'string', minLength: 0, maxLength: 120 }, { type: 'null' }] });
      expect(schema.properties.level).toEqual({ description: 'Level', anyOf: [{ type: 'string', enum: ['beginner', 'intermediate', 'advanced'] }, { type: 'null' }] });
      expect(schema.properties.price_cents).toEqual({
        description: 'Price in minor units of the school currency (cents)',
        anyOf: [{ type: 'integer', minimum: 0, maximum: 100_000_000 }, { type: 'null' }],
      });
      expect(schema.properties.lecturer_ids).toEqual({ description: 'Lecturers teaching it', type: 'array', maxItems: 20, items: { type: 'string', maxLength: 100 } });
      expect(schema.properties.created_at).toEqual({ type: 'string', format: 'date-time', description: 'When it was created' });
      expect(JSON.stringify(schema)).not.toContain('nullable');
    });

    it('says which fields of an area without a public list show in public data, and that a private area has none', async () => {
      const lessons = JSON.parse((await read('lyceum://schema/lessons')).text) as { description: string; properties: Record<string, Record<string, unknown>> };
      expect(lessons.description).toBe(
        "One lesson as GET /api/v1/curriculum/lessons/{id} returns it. Reading them needs curriculum:read. Where they appear in public data (a published course's curriculum outline), only the fields id, section_id, course_id, title, kind, duration_minutes, position, free_preview, created_at, updated_at show.",
      );
      expect(lessons.properties.content).toEqual({ description: 'Lesson content (Markdown); only for the school, never public', anyOf: [{ type: 'string', maxLength: 100_000 }, { type: 'null' }] });
      const students = JSON.parse((await read('lyceum://schema/students')).text) as { description: string; properties: Record<string, unknown> };
      expect(students.description).toBe('One student as GET /api/v1/students/{id} returns it. Reading them needs students:read; none of their fields is public.');
      expect(Object.keys(students.properties)).toEqual(['id', 'name', 'email', 'status', 'user_id', 'notes', 'created_at', 'updated_at']);
    });

    it('reads the OpenAPI document in parts small enough to read, which together are the document GET /openapi.json serves', async () => {
      const whole = (await (await fetch(`${server.issuer}/openapi.json`)).json()) as { openapi: string; info: unknown; paths: Record<string, Record<string, unknown>> };
      const index = JSON.parse((await read('lyceum://openapi')).text) as { openapi: string; whole_document: string; parts: { name: string; uri: string; operations: string[] }[] };
      expect(index).toMatchObject({ openapi: whole.openapi, whole_document: `${server.issuer}/openapi.json` });
      expect(index.parts.find((p) => p.name === 'courses')!.operations).toContain('GET /api/v1/courses/{id}: Read a course');
      const joined: Record<string, Record<string, unknown>> = {};
      for (const part of index.parts) {
        const content = await read(part.uri);
        // A part is at most about 12,000 tokens; the whole document is ten times that.
        expect(content.text.length, part.name).toBeLessThan(50_000);
        const doc = JSON.parse(content.text) as { openapi: string; info: unknown; paths: Record<string, Record<string, unknown>> };
        expect({ openapi: doc.openapi, info: doc.info }, part.name).toEqual({ openapi: whole.openapi, info: whole.info });
        for (const [path, item] of Object.entries(doc.paths)) {
          for (const method of Object.keys(item)) expect(joined[path]?.[method], `${method} ${path} in two parts`).toBeUndefined();
          joined[path] = { ...joined[path], ...item };
        }
        expect(Object.values(doc.paths).flatMap((item) => Object.keys(item)).length, part.name).toBe(part.operations.length);
      }
      expect(joined).toEqual(whole.paths);
      expect(JSON.stringify(whole).length).toBeGreaterThan(300_000);
      const missing = await rpcError(client.readResource({ uri: 'lyceum://openapi/nothing' }));
      expect(missing).toEqual({ code: -32602, message: 'MCP error -32602: Resource not found: lyceum://openapi/nothing' });
      expect(await complete({ type: 'ref/resource', uri: 'lyceum://openapi/{part}' }, 'part', 'cou')).toEqual({ values: ['coupons', 'courses'], total: 2, hasMore: false });
    });

    it('reads auth.md exactly as its HTTP route serves it', async () => {
      const auth = await read('lyceum://auth.md');
      expect(auth.mimeType).toBe('text/markdown');
      expect(auth.text).toBe(await (await fetch(`${server.issuer}/auth.md`)).text());
      expect(auth.text.startsWith('# Lyceum: authentication for CLI tools, apps and agents\n')).toBe(true);
    });

    it('reads a published course with its outline exactly as the anonymous REST API shows it', async () => {
      const id = seeded.courses.published[0]!;
      const content = await read(courseUri(id));
      expect(content).toMatchObject({ uri: courseUri(id), mimeType: 'application/json' });
      const body = JSON.parse(content.text) as { course: Record<string, unknown>; lecturers: Record<string, unknown>[]; curriculum: unknown[] };
      expect(Object.keys(body)).toEqual(['course', 'lecturers', 'curriculum']);
      expect(body.course.title).toBe('Intro to Algebra');
      expect(body.course).toEqual(await (await fetch(`${server.issuer}/api/v1/courses/${id}`)).json());
      expect(body.curriculum).toEqual(((await (await fetch(`${server.issuer}/api/v1/courses/${id}/curriculum`)).json()) as { sections: unknown[] }).sections);
      expect(body.lecturers.map((l) => l.name)).toEqual(['Ada Lovelace']);
      // Public fields only: the lecturer's private email never shows.
      expect(content.text).not.toContain('@private.test');
    });

    it('a draft, archived or unknown course id is resource-not-found, -32602, never its data', async () => {
      for (const id of [...seeded.courses.draft, ...seeded.courses.archived, 'crs_doesnotexist']) {
        const err = await rpcError(client.readResource({ uri: courseUri(id) }));
        expect(err, id).toEqual({ code: -32602, message: `MCP error -32602: Resource not found: ${courseUri(id)}` });
      }
      // An address no resource or template matches: the same answer.
      const unmatched = await rpcError(client.readResource({ uri: 'lyceum://nothing/here' }));
      expect(unmatched.code).toBe(-32602);
      expect(unmatched.message).toContain('Resource not found: lyceum://nothing/here');
    });

    it('a token that may read drafts still reads resources as an anonymous caller', async () => {
      // Unbound (no resource), so that the API accepts it too.
      const { tokens } = await obtainTokens(server, { scope: 'courses:read curriculum:read lecturers:read' });
      const signedIn = await connect(`Bearer ${tokens.access_token}`);
      try {
        const draft = seeded.courses.draft[0]!;
        // The same token reads the draft over REST: the resource hides it on purpose.
        expect((await fetch(`${server.issuer}/api/v1/courses/${draft}`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).status).toBe(200);
        expect((await rpcError(signedIn.readResource({ uri: courseUri(draft) }))).code).toBe(-32602);
        const { resources } = await signedIn.listResources();
        expect(resources.filter((r) => r.uri.startsWith('lyceum://courses/')).map((r) => r.uri)).toEqual(seeded.courses.published.map(courseUri));
        const published = seeded.courses.published[0]!;
        expect((await read(courseUri(published), signedIn)).text).toBe((await read(courseUri(published))).text);
        expect((await signedIn.complete({ ref: { type: 'ref/resource', uri: 'lyceum://courses/{id}' }, argument: { name: 'id', value: '' } })).completion.values).toEqual(seeded.courses.published);
      } finally {
        await signedIn.close();
      }
    });
  });

  describe('completion', () => {
    const template = { type: 'ref/resource' as const, uri: 'lyceum://courses/{id}' };

    it('completes {id} of the course template from published course ids only, by prefix', async () => {
      expect(await complete(template, 'id', '')).toEqual({ values: seeded.courses.published, total: 5, hasMore: false });
      const id = seeded.courses.published[2]!;
      expect(await complete(template, 'id', id)).toEqual({ values: [id], total: 1, hasMore: false });
      for (const hidden of [...seeded.courses.draft, ...seeded.courses.archived]) expect((await complete(template, 'id', hidden)).values, hidden).toEqual([]);
      expect((await complete(template, 'id', 'lec_')).values).toEqual([]);
    });

    it('completes prompt arguments: course ids, levels', async () => {
      expect((await complete({ type: 'ref/prompt', name: 'explain_course' }, 'course_id', '')).values).toEqual(seeded.courses.published);
      expect((await complete({ type: 'ref/prompt', name: 'explain_course' }, 'course_id', seeded.courses.draft[0]!)).values).toEqual([]);
      expect((await complete({ type: 'ref/prompt', name: 'course_outline_from_syllabus' }, 'level', '')).values).toEqual(['beginner', 'intermediate', 'advanced']);
      expect((await complete({ type: 'ref/prompt', name: 'course_outline_from_syllabus' }, 'level', 'a')).values).toEqual(['advanced']);
      // An argument without suggestions, and an unknown prompt (MCP completion: "Invalid prompt name: -32602").
      expect((await complete({ type: 'ref/prompt', name: 'course_outline_from_syllabus' }, 'syllabus', 'W')).values).toEqual([]);
      expect((await rpcError(complete({ type: 'ref/prompt', name: 'no_such_prompt' }, 'x', ''))).code).toBe(-32602);
    });

    it("completes weekly_report's week with the current ISO week and the seven before it", async () => {
      // Wednesday 2026-01-07 noon UTC, in week 2026-W02: the server's clock is moved there and back.
      const shift = Date.UTC(2026, 0, 7, 12) - Date.now();
      server.advance(shift);
      try {
        const ref = { type: 'ref/prompt' as const, name: 'weekly_report' };
        expect((await complete(ref, 'week', '')).values).toEqual(['2026-W02', '2026-W01', '2025-W52', '2025-W51', '2025-W50', '2025-W49', '2025-W48', '2025-W47']);
        expect((await complete(ref, 'week', '2026')).values).toEqual(['2026-W02', '2026-W01']);
        expect((await complete(ref, 'week', '2024')).values).toEqual([]);
      } finally {
        server.advance(-shift);
      }
    });
  });

  describe('prompts', () => {
    it('prompts/list: three prompts with their arguments', async () => {
      expect((await client.listPrompts()).prompts).toEqual([
        {
          name: 'weekly_report',
          title: 'Weekly report',
          description: 'A report on one week of the school: enrollments, revenue, active students, orders and what comes next. Needs a token with analytics:read and orders:read.',
          arguments: [{ name: 'week', description: 'ISO 8601 week, e.g. 2026-W48', required: true }],
        },
        {
          name: 'course_outline_from_syllabus',
          title: 'Course outline from a syllabus',
          description: "Turns a syllabus into a course outline in Lyceum's shape: a course with sections and lessons, checked against the published catalog.",
          arguments: [
            { name: 'syllabus', description: 'The syllabus, as plain text or Markdown', required: true },
            { name: 'level', description: 'Level of the course: beginner, intermediate, advanced', required: false },
          ],
        },
        {
          name: 'explain_course',
          title: 'Explain a course',
          description: 'Explains a published course to a prospective student: who it is for, what each section teaches, the time it takes and the price.',
          arguments: [{ name: 'course_id', description: 'Id of a published course', required: true }],
        },
      ]);
    });

    /** The text of a prompt's one user message. */
    async function promptText(name: string, args: Record<string, string>): Promise<string> {
      const { messages } = await client.getPrompt({ name, arguments: args });
      expect(messages).toHaveLength(1);
      expect(messages[0]!.role).toBe('user');
      expect(messages[0]!.content.type).toBe('text');
      return (messages[0]!.content as { text: string }).text;
    }

    it("weekly_report names the week's days and the tools to call with them", async () => {
      const lines = (await promptText('weekly_report', { week: '2026-W01' })).split('\n');
      expect(lines[0]).toBe("Write the school's weekly report for 2026-W01 (Monday 2025-12-29 to Sunday 2026-01-04).");
      expect(lines[1]).toBe('1. Call get_analytics with from "2025-12-29", to "2026-01-04" and interval "week": enrollments, revenue and active students.');
      expect(lines[3]).toBe('3. Call list_orders (status "paid", then "refunded") and keep the orders paid between 2025-12-29 and 2026-01-04.');
      expect(lines[4]).toBe('4. Call list_events for the events coming up next.');
    });

    it('weekly_report refuses a week its year does not have, and a value that is no ISO week, with -32602', async () => {
      expect(await rpcError(client.getPrompt({ name: 'weekly_report', arguments: { week: '2021-W53' } }))).toEqual({ code: -32602, message: 'MCP error -32602: 2021-W53 is not a week of its year' });
      expect((await rpcError(client.getPrompt({ name: 'weekly_report', arguments: { week: 'last week' } }))).code).toBe(-32602);
      expect((await rpcError(client.getPrompt({ name: 'weekly_report', arguments: {} }))).code).toBe(-32602);
    });

    it('course_outline_from_syllabus points at the data model and the catalog tools, and quotes the syllabus', async () => {
      const text = await promptText('course_outline_from_syllabus', { syllabus: 'Week 1: limits\nWeek 2: derivatives', level: 'beginner' });
      const lines = text.split('\n');
      expect(lines[0]).toBe('Draft a course outline from the syllabus below for the beginner level.');
      expect(lines[1]).toBe('1. Read the resources lyceum://schema/courses, lyceum://schema/sections and lyceum://schema/lessons for the fields a course, a section and a lesson have.');
      expect(lines[3]).toBe(
        '3. Write the outline: title, summary (at most 500 characters), level (beginner, intermediate, advanced), then sections in order, each with lessons in order, every lesson with a title, a kind (video, text, quiz, assignment) and duration_minutes.',
      );
      expect(text.endsWith('\n\nSyllabus:\nWeek 1: limits\nWeek 2: derivatives')).toBe(true);
      expect((await promptText('course_outline_from_syllabus', { syllabus: 'x' })).split('\n')[0]).toBe('Draft a course outline from the syllabus below.');
    });

    it('explain_course points at the course resource and get_course', async () => {
      const id = seeded.courses.published[1]!;
      const lines = (await promptText('explain_course', { course_id: id })).split('\n');
      expect(lines[0]).toBe(`Explain the course ${id} to someone thinking of taking it.`);
      expect(lines[1]).toBe(`Read the resource lyceum://courses/${id} (or call get_course with id "${id}"): its description, lecturers and curriculum outline.`);
    });
  });

  describe('logging', () => {
    it('logging/setLevel answers {} for every level, and -32602 for a name that is no level', async () => {
      for (const level of ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const) {
        expect(await client.setLoggingLevel(level), level).toEqual({});
      }
      const res = await mcpPost(server.issuer, rpc('logging/setLevel', { level: 'loud' }));
      expect(res.status).toBe(200);
      expect((res.json as { error: unknown }).error).toEqual({ code: -32602, message: 'level must be one of debug, info, notice, warning, error, critical, alert, emergency' });
      expect((await mcpPost(server.issuer, rpc('logging/setLevel'))).json).toMatchObject({ error: { code: -32602 } });
    });
  });

  describe('bounds', () => {
    it('resources/list names the first 50 published courses; completion offers 100 ids and reports the total', async () => {
      const base = server.deps.now();
      const added: string[] = [];
      for (let i = 0; i < 100; i++) added.push(await insertRecord(server, AREAS.courses, { title: `Extra ${i}`, slug: `extra-${kind}-${i}`, status: 'published' }, base + i));
      const { resources } = await client.listResources();
      const courses = resources.filter((r) => r.uri.startsWith('lyceum://courses/')).map((r) => r.uri);
      expect(courses).toEqual([...seeded.courses.published, ...added.slice(0, 45)].map(courseUri));
      const all = [...seeded.courses.published, ...added];
      expect(await complete({ type: 'ref/resource', uri: 'lyceum://courses/{id}' }, 'id', '')).toEqual({ values: all.slice(0, 100), total: 105, hasMore: true });
      // Every published course is still readable through the template.
      expect(JSON.parse((await read(courseUri(added[99]!))).text).course.title).toBe('Extra 99');
    });
  });
});
