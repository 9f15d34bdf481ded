import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MCP_ACCEPT, mcpPost, recordingFetch, resultOf, rpc, seedSchool, toolCall, type Exchange, type McpResponse, type Seeded } from '../helpers/mcp.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { isolatedDatabase } from '../helpers/postgres-database.ts';

/** The tools anyone may call: a public view of the school, stated by hand. */
const CATALOG_TOOLS = [
  'get_site_info',
  'get_course',
  'list_courses',
  'list_lecturers',
  'get_lecturer',
  'list_membership_plans',
  'get_membership_plan',
  'list_digital_products',
  'get_digital_product',
  'list_events',
  'get_event',
  'list_posts',
  'get_post',
  'list_pages',
  'get_page',
  'get_school_settings',
  'get_appearance',
];
/** Some tools that need a token, and the scope their description names, as a client reads them. */
const SCOPED_TOOLS: Record<string, string> = {
  get_my_account: 'account:read',
  list_my_enrollments: 'account:read',
  list_my_lessons: 'account:read',
  list_my_orders: 'account:read',
  list_my_subscriptions: 'account:read',
  update_my_account: 'account:write',
  list_students: 'students:read',
  list_orders: 'orders:read',
  get_analytics: 'analytics:read',
  update_course: 'courses:write',
  enroll_student_by_email: 'students:write',
  get_enrollment_progress: 'students:read',
  complete_lesson_for_student: 'students:write',
  complete_my_lesson: 'account:write',
  uncomplete_my_lesson: 'account:write',
  get_my_progress: 'account:read',
  list_webhooks: 'school:write',
  create_webhook: 'school:write',
  delete_webhook: 'school:write',
};
/** The tools that change something are named for it; every other one is read-only. */
const isWriteTool = (name: string) => /^(create|update|delete|publish|enroll|complete|uncomplete)_/.test(name);

/** The structured key and REST path of each catalog list tool. */
const LIST_TOOLS: { tool: string; key: string; path: string }[] = [
  { tool: 'list_courses', key: 'courses', path: '/courses' },
  { tool: 'list_lecturers', key: 'lecturers', path: '/lecturers' },
  { tool: 'list_membership_plans', key: 'membership_plans', path: '/membership-plans' },
  { tool: 'list_digital_products', key: 'digital_products', path: '/digital-products' },
  { tool: 'list_events', key: 'events', path: '/events' },
  { tool: 'list_posts', key: 'posts', path: '/posts' },
];

type CallResult = { content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

describe.each(STORE_KINDS)('MCP server, anonymous (%s)', (kind) => {
  let server: TestServer;
  let drop: () => Promise<void>;
  let seeded: Seeded;
  let client: Client;
  let transport: StreamableHTTPClientTransport;
  const traffic = recordingFetch();

  beforeAll(async () => {
    const isolated = await isolatedDatabase(kind);
    drop = isolated.drop;
    server = await startTestServer(kind, isolated.env);
    seeded = await seedSchool(server);
    client = new Client({ name: 'lyceum-anonymous-test', version: '1.0.0' });
    transport = new StreamableHTTPClientTransport(new URL(`${server.issuer}/mcp`), { fetch: traffic.fetch });
    await client.connect(transport);
    // The optional GET stream is opened without being awaited: wait for its answer.
    await vi.waitFor(() => expect(traffic.log.some((e) => e.method === 'GET')).toBe(true));
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
    await drop?.();
  });

  /** GET /api/v1{path} with no token. */
  async function rest(path: string): Promise<{ data: Record<string, unknown>[]; next_cursor?: string }> {
    const res = await fetch(`${server.issuer}/api/v1${path}`);
    expect(res.status, path).toBe(200);
    expect(res.headers.get('www-authenticate')).toBeNull();
    return (await res.json()) as { data: Record<string, unknown>[]; next_cursor?: string };
  }

  async function call(name: string, args: Record<string, unknown> = {}): Promise<CallResult> {
    return (await client.callTool({ name, arguments: args })) as CallResult;
  }

  /** A successful tool result: structured content and one text item. */
  function expectToolResult(result: CallResult, name: string): { structured: Record<string, unknown>; text: string } {
    expect(result.isError ?? false, `${name}: ${JSON.stringify(result.content)}`).toBe(false);
    expect(result.structuredContent, name).toBeTypeOf('object');
    const texts = result.content.filter((c) => c.type === 'text');
    expect(texts, name).toHaveLength(1);
    expect(texts[0]!.text, name).toMatch(/\S/);
    return { structured: result.structuredContent!, text: texts[0]!.text! };
  }

  const ids = (rows: unknown) => (rows as { id: string }[]).map((r) => r.id);

  describe('with the SDK client', () => {
    it('initializes: a supported protocol version and serverInfo.name lyceum', () => {
      expect(SUPPORTED_PROTOCOL_VERSIONS).toContain(transport.protocolVersion);
      expect(client.getServerVersion()?.name).toBe('lyceum');
      // The tool list is the same for every caller and never changes while the server runs: nothing to announce.
      expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: false });
      expect(client.getInstructions()).toMatch(/oauth-protected-resource\/mcp/);
      // The initialize exchange itself went out with no credentials and came back 200, unchallenged.
      const init = traffic.log.find((e) => e.method === 'POST' && e.body.includes('"initialize"'));
      expect(init).toMatchObject({ status: 200, authorization: null, wwwAuthenticate: null });
    });

    it('lists every tool to a caller without a token; those that need one name their scope', async () => {
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      for (const name of [...CATALOG_TOOLS, ...Object.keys(SCOPED_TOOLS)]) expect(names, name).toContain(name);
      for (const tool of tools) {
        expect(tool.annotations?.readOnlyHint, tool.name).toBe(!isWriteTool(tool.name));
        expect(tool.inputSchema.type, tool.name).toBe('object');
        expect(tool.description, tool.name).toMatch(/\S/);
        const scope = SCOPED_TOOLS[tool.name];
        if (scope) expect(tool.description, tool.name).toContain(`(scope: ${scope})`);
        // Anyone may call exactly the catalog tools: every other one names the scopes it needs.
        if (CATALOG_TOOLS.includes(tool.name)) expect(tool.description, tool.name).not.toContain('(scope:');
        else expect(tool.description, tool.name).toMatch(/\(scope: [a-z_]+:(read|write)/);
      }
      // The shapes are built from zod when the first request loads it (src/mcp/tool.ts): each lists its fields.
      const search = tools.find((t) => t.name === 'list_courses')!;
      expect(Object.keys(search.inputSchema.properties ?? {}).sort()).toEqual(['cursor', 'fields', 'language', 'level', 'limit', 'pseudonymize', 'q', 'slug', 'status']);
      expect(search.inputSchema.properties?.level).toMatchObject({ enum: ['beginner', 'intermediate', 'advanced'] });
      expect(Object.keys(tools.find((t) => t.name === 'get_course')!.inputSchema.properties ?? {})).toEqual(['id', 'pseudonymize']);
      expect(tools.find((t) => t.name === 'get_course')!.inputSchema.required).toEqual(['id']);
    });

    it('calls every catalog tool: each result has structured content and a text item', async () => {
      const idOf: Record<string, string | undefined> = {
        get_course: seeded.courses.published[0],
        get_lecturer: seeded.lecturers[0]?.id,
        get_membership_plan: seeded.plans.published[0],
        get_digital_product: seeded.products.published[0],
        get_event: seeded.events.upcoming[0],
        get_post: seeded.posts.published[0],
      };
      // The seeded school has no page: get_page is called by list_pages's test in mcp-record-tools.
      for (const name of CATALOG_TOOLS.filter((n) => n !== 'get_page')) expectToolResult(await call(name, name.startsWith('get_') && name in idOf ? { id: idOf[name] } : {}), name);
    });

    it('get_course returns the course and its outline exactly as the anonymous REST API does', async () => {
      const id = seeded.courses.published[0]!;
      const { structured, text } = expectToolResult(await call('get_course', { id }), 'get_course');
      const course = (await (await fetch(`${server.issuer}/api/v1/courses/${id}`)).json()) as Record<string, unknown>;
      const outline = (await (await fetch(`${server.issuer}/api/v1/courses/${id}/curriculum`)).json()) as { sections: unknown[] };
      expect(structured.course).toEqual(course);
      expect(structured.curriculum).toEqual(outline.sections);
      expect(text).toContain(String(course.title));
      expect(JSON.stringify(structured)).not.toContain('"content"');
    });

    it('get_course treats a draft course as unknown, as a tool error and not a transport error', async () => {
      const result = await call('get_course', { id: seeded.courses.draft[0] });
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toMatch(/No course/);
    });

    it('get_site_info counts what the REST API shows', async () => {
      const { structured, text } = expectToolResult(await call('get_site_info'), 'get_site_info');
      const courses = await rest('/courses?limit=100');
      const lecturers = await rest('/lecturers?limit=100');
      expect(structured).toMatchObject({
        published_courses: courses.data.length,
        lecturers: lecturers.data.length,
        links: {
          api: `${server.issuer}/openapi.json`,
          authentication: `${server.issuer}/auth.md`,
          pricing: `${server.issuer}/pricing.md`,
          llms_txt: `${server.issuer}/llms.txt`,
        },
      });
      expect(structured.published_courses).toBe(seeded.courses.published.length);
      expect(text).toContain(`${seeded.courses.published.length} published courses`);
    });

    it('every list tool returns exactly the records of the anonymous REST list, public fields only', async () => {
      for (const { tool, key, path } of LIST_TOOLS) {
        const expected = await rest(`${path}?limit=50`);
        // Long text is left out of lists unless named in fields: name every field the REST answer has.
        const fields = Object.keys(expected.data[0] ?? {}).filter((k) => k !== 'id');
        const { structured, text } = expectToolResult(await call(tool, { limit: 50, fields }), tool);
        expect(structured[key], tool).toEqual(expected.data);
        expect(structured.next_cursor, tool).toBeUndefined();
        expect(expected.data.length, `${tool} has seeded rows`).toBeGreaterThan(0);
        for (const row of expected.data) expect(text, tool).toContain(String(row.id));
      }
    });

    it('shows the seeded published records and never a draft, archived or past one', async () => {
      const seen = async (tool: string, key: string) => ids(expectToolResult(await call(tool, { limit: 50 }), tool).structured[key]);
      expect(await seen('list_courses', 'courses')).toEqual(seeded.courses.published);
      expect(await seen('list_membership_plans', 'membership_plans')).toEqual(seeded.plans.published);
      expect(await seen('list_digital_products', 'digital_products')).toEqual(seeded.products.published);
      expect(await seen('list_posts', 'posts')).toEqual(seeded.posts.published);
      expect(await seen('list_lecturers', 'lecturers')).toEqual(seeded.lecturers.map((l) => l.id));
      // Upcoming only, soonest first (events sort by starts_at); the past and draft ones are left out.
      expect(await seen('list_events', 'events')).toEqual([seeded.events.upcoming[1], seeded.events.upcoming[0]]);

      for (const { tool } of LIST_TOOLS) {
        const { text, structured } = expectToolResult(await call(tool, { limit: 50 }), tool);
        expect(text, tool).not.toContain(seeded.draftWord);
        expect(JSON.stringify(structured), tool).not.toContain(seeded.draftWord);
      }
    });

    it('never shows private fields to anonymous callers', async () => {
      const lecturers = expectToolResult(await call('list_lecturers', { limit: 50 }), 'list_lecturers').structured.lecturers as Record<string, unknown>[];
      for (const l of lecturers) expect(l).not.toHaveProperty('email');
      const events = expectToolResult(await call('list_events', { limit: 50 }), 'list_events').structured.events as Record<string, unknown>[];
      for (const e of events) expect(e).not.toHaveProperty('online_url');
      const products = expectToolResult(await call('list_digital_products', { limit: 50 }), 'list_digital_products').structured.digital_products as Record<string, unknown>[];
      for (const p of products) expect(p).not.toHaveProperty('file_id');
      const all = JSON.stringify(lecturers) + JSON.stringify(events);
      expect(all).not.toContain('@private.test');
      expect(all).not.toContain('meet.example.test');
    });

    it('list_courses matches GET /api/v1/courses for text, level and language, and never finds drafts', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ q: 'Calculus' }, 'q=Calculus'],
        [{ level: 'advanced' }, 'level=advanced'],
        [{ language: 'fr' }, 'language=fr'],
        [{ q: 'Course' }, 'q=Course'],
      ];
      for (const [args, query] of cases) {
        const { structured } = expectToolResult(await call('list_courses', { ...args, limit: 50 }), 'list_courses');
        const expected = await rest(`/courses?limit=50&${query}`);
        expect(ids(structured.courses), query).toEqual(ids(expected.data));
      }
      expect(ids(expectToolResult(await call('list_courses', { level: 'advanced', limit: 50 }), 'list_courses').structured.courses)).toEqual([
        seeded.courses.published[1],
        seeded.courses.published[3],
      ]);
      const drafts = expectToolResult(await call('list_courses', { q: seeded.draftWord }), 'list_courses');
      expect(drafts.structured.courses).toEqual([]);
      expect(drafts.text).toBe('Nothing found.');
    });

    it('pages with next_cursor exactly as the REST API does, over every published course', async () => {
      const collected: string[] = [];
      let cursor: string | undefined;
      let restCursor: string | undefined;
      for (let page = 0; page < 10; page++) {
        const { structured, text } = expectToolResult(await call('list_courses', { limit: 2, ...(cursor ? { cursor } : {}) }), 'list_courses');
        const expected = await rest(`/courses?limit=2${restCursor ? `&cursor=${encodeURIComponent(restCursor)}` : ''}`);
        expect(ids(structured.courses)).toEqual(ids(expected.data));
        expect(structured.next_cursor).toBe(expected.next_cursor);
        collected.push(...ids(structured.courses));
        cursor = structured.next_cursor as string | undefined;
        restCursor = expected.next_cursor;
        if (!cursor) break;
        expect(text).toContain(`cursor "${cursor}"`);
      }
      expect(cursor).toBeUndefined();
      expect(collected).toEqual(seeded.courses.published);
    });

    it('answers a cursor it never issued with a tool error, not a transport error', async () => {
      const result = await call('list_courses', { cursor: 'not-a-cursor' });
      expect(result.isError).toBe(true);
      expect(result.content[0]?.text).toMatch(/cursor/);
    });

    it('sent no credentials and received no challenge on any exchange', () => {
      expect(traffic.log.length).toBeGreaterThan(3);
      for (const e of traffic.log) {
        expect(e.authorization, `${e.method} ${e.url.pathname}`).toBeNull();
        expect(e.wwwAuthenticate, `${e.method} ${e.url.pathname}`).toBeNull();
        expect(e.status, `${e.method} ${e.url.pathname}`).toBeLessThan(500);
      }
      // The client tried the optional GET stream once after initialization; the stateless server refused it.
      const gets = traffic.log.filter((e: Exchange) => e.method === 'GET');
      expect(gets).toHaveLength(1);
      expect(gets[0]).toMatchObject({ status: 405, url: new URL(`${server.issuer}/mcp`) });
    });
  });

  describe('raw HTTP', () => {
    const noChallenge = (res: McpResponse | Response) => expect(res.headers.get('www-authenticate')).toBeNull();

    function expectJsonRpcError(res: McpResponse, status: number, code: number) {
      expect({ status: res.status, body: res.json }, res.text).toMatchObject({ status, body: { jsonrpc: '2.0', error: { code, message: expect.any(String) } } });
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    }

    it('GET /mcp is 405 with Allow: POST, never a 200 stream', async () => {
      for (const accept of ['text/event-stream', MCP_ACCEPT, '*/*']) {
        const res = await fetch(`${server.issuer}/mcp`, { headers: { accept } });
        expect(res.status, accept).toBe(405);
        expect(res.headers.get('allow')).toBe('POST');
        expect(res.headers.get('content-type')).not.toMatch(/event-stream/);
        noChallenge(res);
        await res.body?.cancel();
      }
    });

    it('DELETE /mcp is 405 with Allow: POST', async () => {
      const res = await fetch(`${server.issuer}/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': 'anything' } });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      noChallenge(res);
      await res.body?.cancel();
    });

    it('initialize, tools/list and a catalog tools/call work over plain POSTs, unchallenged', async () => {
      const init = await mcpPost(server.issuer, rpc('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } }));
      expect(resultOf(init)).toMatchObject({ protocolVersion: '2025-06-18', serverInfo: { name: 'lyceum' } });
      noChallenge(init);
      const list = await mcpPost(server.issuer, rpc('tools/list'), { headers: { 'mcp-protocol-version': '2025-06-18' } });
      expect((resultOf(list).tools as { name: string }[]).map((t) => t.name)).toEqual(expect.arrayContaining([...CATALOG_TOOLS, ...Object.keys(SCOPED_TOOLS)]));
      noChallenge(list);
      const called = await mcpPost(server.issuer, toolCall('list_courses', { limit: 50 }));
      expect(ids((resultOf(called).structuredContent as Record<string, unknown>).courses)).toEqual(seeded.courses.published);
      noChallenge(called);
    });

    it('malformed JSON is HTTP 400 with JSON-RPC -32700, never 5xx', async () => {
      for (const raw of ['{"jsonrpc": "2.0", "id": 1, "method": ', 'not json', '', '{"a":1}}']) {
        const res = await mcpPost(server.issuer, undefined, { raw });
        expectJsonRpcError(res, 400, -32700);
        noChallenge(res);
      }
    });

    it('JSON that is not a JSON-RPC message is a 4xx JSON-RPC error, never 5xx', async () => {
      for (const raw of ['null', '42', '"text"', '{}', '{"jsonrpc":"1.0","id":1,"method":"ping"}']) {
        const res = await mcpPost(server.issuer, undefined, { raw });
        expect(res.status, raw).toBeGreaterThanOrEqual(400);
        expect(res.status, raw).toBeLessThan(500);
        expect((res.json as { error?: { code?: unknown } } | undefined)?.error?.code, `${raw}: ${res.text}`).toEqual(expect.any(Number));
        noChallenge(res);
      }
    });

    it('a JSON-RPC batch is refused whole, 400 -32600, whatever it holds: one request is one message', async () => {
      const lists = Array.from({ length: 100 }, () => rpc('tools/list'));
      for (const body of [lists, [rpc('tools/list')], [toolCall('list_courses'), toolCall('list_students')], [], [1]]) {
        const res = await mcpPost(server.issuer, body);
        expectJsonRpcError(res, 400, -32600);
        expect((res.json as { error: { message: string } }).error.message).toBe('Invalid Request: JSON-RPC batches are not accepted; send one message per request');
        // Nothing ran: the answer is the one error, a few hundred bytes, not a hundred lists.
        expect(res.text.length).toBeLessThan(300);
        noChallenge(res);
      }
      // A signed-in caller's batch is refused the same way.
      const signedIn = await mcpPost(server.issuer, lists, { authorization: 'Bearer lyc_at_unknown' });
      expectJsonRpcError(signedIn, 400, -32600);
    });

    it('an unknown method is JSON-RPC error -32601, not 5xx', async () => {
      const message = rpc('no/such/method', {});
      const res = await mcpPost(server.issuer, message);
      expect(res.status).toBeLessThan(500);
      expect(res.json).toMatchObject({ jsonrpc: '2.0', id: message.id, error: { code: -32601 } });
      noChallenge(res);
    });

    it('an unknown tool is an error result or JSON-RPC error, never 5xx', async () => {
      const res = await mcpPost(server.issuer, toolCall('no_such_tool'));
      expect(res.status).toBeLessThan(500);
      const body = res.json as { result?: { isError?: boolean }; error?: { code: number } };
      expect(body.result?.isError === true || typeof body.error?.code === 'number', res.text).toBe(true);
      noChallenge(res);
    });

    it('invalid tool arguments are a tool error or JSON-RPC -32602, never 5xx', async () => {
      for (const args of [{ limit: 0 }, { limit: 'ten' }, { level: 'expert' }, { q: 'x'.repeat(201) }]) {
        const res = await mcpPost(server.issuer, toolCall('list_courses', args));
        expect(res.status, JSON.stringify(args)).toBeLessThan(500);
        const body = res.json as { result?: { isError?: boolean }; error?: { code: number } };
        expect(body.result?.isError === true || body.error?.code === -32602, `${JSON.stringify(args)}: ${res.text}`).toBe(true);
        noChallenge(res);
      }
    });

    it('a body over 1 MiB is 413; one under it is served', async () => {
      const big = JSON.stringify({ ...rpc('ping'), params: { _meta: { pad: 'x'.repeat(1024 * 1024) } } });
      const tooLarge = await mcpPost(server.issuer, undefined, { raw: big });
      expect(tooLarge.status).toBe(413);
      noChallenge(tooLarge);
      const malformedLarge = await mcpPost(server.issuer, undefined, { raw: `[${'1,'.repeat(600 * 1024)}` });
      expect(malformedLarge.status).toBe(413);

      // Larger than the app's 64 KiB default, within the MCP limit.
      const medium = { ...rpc('ping'), params: { _meta: { pad: 'x'.repeat(200 * 1024) } } };
      const ok = await mcpPost(server.issuer, medium);
      expect(resultOf(ok)).toEqual({});
      noChallenge(ok);
    });

    it('requires the Streamable HTTP Accept header, with a 4xx JSON-RPC error', async () => {
      const res = await mcpPost(server.issuer, rpc('tools/list'), { headers: { accept: 'application/json' } });
      expect(res.status).toBe(406);
      noChallenge(res);
    });

    it('an access_token in the query string is refused, and still not challenged', async () => {
      const res = await fetch(`${server.issuer}/mcp?access_token=abc`, {
        method: 'POST',
        headers: { accept: MCP_ACCEPT, 'content-type': 'application/json' },
        body: JSON.stringify(rpc('tools/list')),
      });
      expect(res.status).toBe(400);
      noChallenge(res);
      expect(await res.json()).toMatchObject({ error: 'invalid_request' });
    });
  });
});
