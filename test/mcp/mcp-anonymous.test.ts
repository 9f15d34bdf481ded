import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MCP_ACCEPT, mcpPost, recordingFetch, resultOf, rpc, seedSchool, toolCall, type Exchange, type McpResponse, type Seeded } from '../helpers/mcp.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { isolatedDatabase } from '../helpers/postgres-database.ts';

/** The anonymous list, in its order: the catalog and a way in (src/mcp/toolsets.ts), stated by hand. */
const CATALOG_TOOLS = ['get_site_info', 'get_course', 'list_records', 'get_record', 'sign_in'];
/** Some tools a token opens, and the scope they answer 401 for without one. */
const SCOPED_TOOLS: Record<string, string> = {
  get_my_account: 'account:read',
  get_my_progress: 'account:read',
  list_my_enrollments: 'account:read',
  update_my_account: 'account:write',
  set_my_lesson_completion: 'account:write',
  get_course_progress: 'students:read',
  set_lesson_completion: 'students:write',
  enroll_student_by_email: 'students:write',
  build_course: 'courses:write curriculum:write',
  get_analytics: 'analytics:read',
  list_webhooks: 'school:write',
};

/** The areas anyone may list, with their REST path. */
const PUBLIC_AREAS: { area: string; path: string }[] = [
  { area: 'courses', path: '/courses' },
  { area: 'lecturers', path: '/lecturers' },
  { area: 'membership_plans', path: '/membership-plans' },
  { area: 'digital_products', path: '/digital-products' },
  { area: 'events', path: '/events' },
  { area: 'posts', path: '/posts' },
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
      // A caller's list depends only on its token and headers, never on the connection: nothing to announce.
      expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: false });
      expect(client.getInstructions()).toMatch(/oauth-protected-resource\/mcp/);
      // The initialize exchange itself went out with no credentials and came back 200, unchallenged.
      const init = traffic.log.find((e) => e.method === 'POST' && e.body.includes('"initialize"'));
      expect(init).toMatchObject({ status: 200, authorization: null, wwwAuthenticate: null });
    });

    it('lists the catalog and a way in, read-only; every other tool answers 401 naming its scope, unchallenged', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(CATALOG_TOOLS);
      for (const tool of tools) {
        expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);
        expect(tool.inputSchema.type, tool.name).toBe('object');
        expect(tool.description, tool.name).toMatch(/\S/);
      }
      // sign_in is the one listed tool that needs a token: it is the way in, and says so.
      expect(tools.find((t) => t.name === 'sign_in')!.description).toMatch(/sign in.*\(scope: account:read\)$/s);
      // The area list names only what anyone may read; no learner is shown, so no pseudonymize option.
      const list = tools.find((t) => t.name === 'list_records')!;
      expect(Object.keys(list.inputSchema.properties ?? {})).toEqual(['area', 'q', 'filters', 'cursor', 'limit', 'fields', 'detail']);
      expect((list.inputSchema.properties?.area as { enum: string[] }).enum.sort()).toEqual([...PUBLIC_AREAS.map((a) => a.area), 'pages'].sort());
      expect(tools.find((t) => t.name === 'get_course')!.inputSchema).toMatchObject({ properties: { id: { type: 'string' } }, required: ['id'] });
      // Called without a token, a tool the list leaves out answers 401 naming the scope it needs, as REST
      // does: never a challenge, which the contract keeps for a token that is bad or short of scope.
      for (const [name, scope] of Object.entries(SCOPED_TOOLS)) {
        const res = await mcpPost(server.issuer, toolCall(name, {}));
        expect({ status: res.status, challenge: res.headers.get('www-authenticate') }, name).toEqual({ status: 401, challenge: null });
        expect((res.json as { error_description: string }).error_description, name).toContain(`with ${scope};`);
      }
    });

    it('reads every public area: each answer has structured content and a text that carries it', async () => {
      const idOf: Record<string, string | undefined> = {
        courses: seeded.courses.published[0],
        lecturers: seeded.lecturers[0]?.id,
        membership_plans: seeded.plans.published[0],
        digital_products: seeded.products.published[0],
        events: seeded.events.upcoming[0],
        posts: seeded.posts.published[0],
      };
      for (const { area } of PUBLIC_AREAS) {
        const listed = expectToolResult(await call('list_records', { area }), area);
        expect(listed.text, area).toContain(JSON.stringify(listed.structured));
        const one = expectToolResult(await call('get_record', { id: idOf[area] }), area);
        expect(one.structured, area).toMatchObject({ area, record: { id: idOf[area] } });
        expect(one.text, area).toContain(JSON.stringify(one.structured));
      }
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

    it('every public area lists exactly the records of the anonymous REST list, public fields only', async () => {
      for (const { area, path } of PUBLIC_AREAS) {
        const expected = await rest(`${path}?limit=50`);
        // Long text is left out of lists unless named in fields: name every field the REST answer has.
        const fields = Object.keys(expected.data[0] ?? {}).filter((k) => k !== 'id');
        const { structured, text } = expectToolResult(await call('list_records', { area, limit: 50, fields }), area);
        expect(structured.records, area).toEqual(expected.data);
        expect(structured.next_cursor, area).toBeUndefined();
        expect(expected.data.length, `${area} has seeded rows`).toBeGreaterThan(0);
        for (const row of expected.data) expect(text, area).toContain(String(row.id));
      }
    });

    it('shows the seeded published records and never a draft, archived or past one', async () => {
      const seen = async (area: string) => ids(expectToolResult(await call('list_records', { area, limit: 50 }), area).structured.records);
      expect(await seen('courses')).toEqual(seeded.courses.published);
      expect(await seen('membership_plans')).toEqual(seeded.plans.published);
      expect(await seen('digital_products')).toEqual(seeded.products.published);
      expect(await seen('posts')).toEqual(seeded.posts.published);
      expect(await seen('lecturers')).toEqual(seeded.lecturers.map((l) => l.id));
      // Upcoming only, soonest first (events sort by starts_at); the past and draft ones are left out.
      expect(await seen('events')).toEqual([seeded.events.upcoming[1], seeded.events.upcoming[0]]);

      for (const { area } of PUBLIC_AREAS) {
        const { text, structured } = expectToolResult(await call('list_records', { area, limit: 50, detail: true }), area);
        expect(text, area).not.toContain(seeded.draftWord);
        expect(JSON.stringify(structured), area).not.toContain(seeded.draftWord);
      }
    });

    it('never shows private fields to anonymous callers, even with detail', async () => {
      const records = async (area: string) => expectToolResult(await call('list_records', { area, limit: 50, detail: true }), area).structured.records as Record<string, unknown>[];
      const lecturers = await records('lecturers');
      for (const l of lecturers) expect(l).not.toHaveProperty('email');
      const events = await records('events');
      for (const e of events) expect(e).not.toHaveProperty('online_url');
      for (const p of await records('digital_products')) expect(p).not.toHaveProperty('file_id');
      const all = JSON.stringify(lecturers) + JSON.stringify(events);
      expect(all).not.toContain('@private.test');
      expect(all).not.toContain('meet.example.test');
      // Asking for a private field by name is no way round it.
      const named = expectToolResult(await call('get_record', { id: lecturers[0]!.id, fields: ['email'] }), 'get_record');
      expect(named.structured.record).toEqual({ id: lecturers[0]!.id });
    });

    it('lists courses as GET /api/v1/courses does for text, level and language, and never finds drafts', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ q: 'Calculus' }, 'q=Calculus'],
        [{ filters: { level: 'advanced' } }, 'level=advanced'],
        [{ filters: { language: 'fr' } }, 'language=fr'],
        [{ q: 'Course' }, 'q=Course'],
      ];
      const courses = async (args: Record<string, unknown>) => expectToolResult(await call('list_records', { area: 'courses', limit: 50, ...args }), 'list_records');
      for (const [args, query] of cases) {
        const expected = await rest(`/courses?limit=50&${query}`);
        expect(ids((await courses(args)).structured.records), query).toEqual(ids(expected.data));
      }
      expect(ids((await courses({ filters: { level: 'advanced' } })).structured.records)).toEqual([seeded.courses.published[1], seeded.courses.published[3]]);
      const drafts = await courses({ q: seeded.draftWord });
      expect(drafts.structured.records).toEqual([]);
      expect(drafts.text).toMatch(/^No courses found\./);
    });

    it('pages with next_cursor exactly as the REST API does, over every published course', async () => {
      const collected: string[] = [];
      let cursor: string | undefined;
      let restCursor: string | undefined;
      for (let page = 0; page < 10; page++) {
        const { structured, text } = expectToolResult(await call('list_records', { area: 'courses', limit: 2, ...(cursor ? { cursor } : {}) }), 'list_records');
        const expected = await rest(`/courses?limit=2${restCursor ? `&cursor=${encodeURIComponent(restCursor)}` : ''}`);
        expect(ids(structured.records)).toEqual(ids(expected.data));
        expect(structured.next_cursor).toBe(expected.next_cursor);
        collected.push(...ids(structured.records));
        cursor = structured.next_cursor as string | undefined;
        restCursor = expected.next_cursor;
        if (!cursor) break;
        expect(text).toContain(`"next_cursor":"${cursor}"`);
      }
      expect(cursor).toBeUndefined();
      expect(collected).toEqual(seeded.courses.published);
    });

    it('answers a cursor it never issued with a tool error, not a transport error', async () => {
      const result = await call('list_records', { area: 'courses', cursor: 'not-a-cursor' });
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
      expect((resultOf(list).tools as { name: string }[]).map((t) => t.name)).toEqual(CATALOG_TOOLS);
      noChallenge(list);
      const called = await mcpPost(server.issuer, toolCall('list_records', { area: 'courses', limit: 50 }));
      expect(ids((resultOf(called).structuredContent as Record<string, unknown>).records)).toEqual(seeded.courses.published);
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
      for (const body of [lists, [rpc('tools/list')], [toolCall('list_records', { area: 'courses' }), toolCall('list_records', { area: 'students' })], [], [1]]) {
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
      for (const args of [{ limit: 0 }, { limit: 'ten' }, { area: 'nowhere' }, { q: 'x'.repeat(201) }, { course_id: 'crs_x' }, { filters: { colour: 'red' } }]) {
        const res = await mcpPost(server.issuer, toolCall('list_records', { area: 'courses', ...args }));
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
