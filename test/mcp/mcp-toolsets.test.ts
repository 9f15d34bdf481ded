/**
 * tools/list shaped by the caller: what each role finds without choosing,
 * what the X-MCP-Toolsets and X-MCP-Readonly headers narrow it to, and that a
 * tool left out of a list still answers 401 or 403 when called. The sizes are
 * the targets the MCP design is held to (docs/decisions.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AREA_LIST } from '../../src/platform/areas.ts';
import { seedDemo } from '../../src/demo/seed.ts';
import { parseChallenge } from '../helpers/bearer.ts';
import { MCP_ACCEPT, mcpPost, resultOf, rpc, toolCall } from '../helpers/mcp.ts';
import { listFor, roleToken, type ListedSize } from '../helpers/mcp-lists.ts';
import { startRecordsServer, type RecordsServer } from '../helpers/records.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const KB = 1024;

describe.each(STORE_KINDS)('tools/list by caller and toolset (%s)', (kind) => {
  let ctx: RecordsServer;
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    ctx = await startRecordsServer(kind);
    await seedDemo(ctx.server.deps.store);
    for (const role of ['student', 'lecturer', 'owner'] as const) tokens[role] = await roleToken(ctx.server, role);
  });
  afterAll(async () => {
    await ctx?.server.stop();
  });

  const list = (token?: string, headers: Record<string, string> = {}): Promise<ListedSize> => listFor(ctx.server.issuer, token, headers);

  it('anonymous: the catalog and a way in, small', async () => {
    const anonymous = await list();
    expect(anonymous.tools).toEqual(['get_site_info', 'get_course', 'list_records', 'get_record', 'sign_in']);
    expect(anonymous.bytes).toBeLessThanOrEqual(12 * KB);
    // sign_in answers 401 with the challenge clients start their OAuth flow from.
    const signIn = await mcpPost(ctx.server.issuer, toolCall('sign_in'));
    expect({ status: signIn.status, error: (signIn.json as { error?: string }).error }).toEqual({ status: 401, error: 'invalid_request' });
  });

  it('a student: the catalog and the learner set, every tool usable', async () => {
    const student = await list(tokens.student);
    expect(student.tools).toEqual([
      'get_site_info',
      'get_course',
      'list_records',
      'get_record',
      'get_my_account',
      'get_my_progress',
      'set_my_lesson_completion',
      'list_my_enrollments',
      'list_my_lessons',
      'list_my_orders',
      'list_my_subscriptions',
      'update_my_account',
    ]);
    expect(student.bytes).toBeLessThanOrEqual(15 * KB);
  });

  it('staff by default: their daily work within 30 tools and 40 KB; every toolset within 60 tools and 100 KB', async () => {
    for (const role of ['lecturer', 'owner']) {
      const daily = await list(tokens[role]);
      expect(daily.tools.length, role).toBeLessThanOrEqual(30);
      expect(daily.bytes, role).toBeLessThanOrEqual(40 * KB);
      expect(daily.tools, role).toEqual(expect.arrayContaining(['build_course', 'reorder_curriculum', 'get_course_progress', 'get_my_progress', 'list_records', 'create_record']));
      expect(daily.tools, role).not.toContain('update_school_settings');
    }
    const lecturer = await list(tokens.lecturer);
    // A lecturer reads students but does not enroll them, and has no analytics scope: none of those tools is listed.
    expect(lecturer.tools).not.toContain('get_analytics');
    expect(lecturer.tools).not.toContain('enroll_student_by_email');
    expect((await list(tokens.owner)).tools).toContain('enroll_student_by_email');
    const all = await list(tokens.owner, { 'x-mcp-toolsets': 'all' });
    expect(all.tools.length).toBeLessThanOrEqual(60);
    expect(all.bytes).toBeLessThanOrEqual(100 * KB);
    expect(all.largest.bytes, all.largest.name).toBeLessThanOrEqual(2 * KB);
    expect(all.tools).toEqual(expect.arrayContaining(['update_school_settings', 'update_appearance', 'create_webhook', 'upload_file', 'get_analytics', 'get_my_account']));
    // Every area's records are reachable through the record tools.
    const records = (await mcpPost(ctx.server.issuer, rpc('tools/list'), { authorization: `Bearer ${tokens.owner}`, headers: { 'x-mcp-toolsets': 'all' } })).json as {
      result: { tools: { name: string; inputSchema: { properties: { area?: { enum: string[] } } } }[] };
    };
    expect(records.result.tools.find((t) => t.name === 'list_records')!.inputSchema.properties.area!.enum.sort()).toEqual(AREA_LIST.map((a) => a.name).sort());
  });

  it('X-MCP-Toolsets narrows, X-MCP-Readonly leaves only reads, and the order never changes', async () => {
    const commerce = await list(tokens.owner, { 'x-mcp-toolsets': 'commerce' });
    expect(commerce.tools).toEqual(['list_records', 'get_record', 'create_record', 'update_record', 'delete_record']);
    const readOnly = await list(tokens.owner, { 'x-mcp-toolsets': 'all', 'x-mcp-readonly': 'true' });
    const all = await list(tokens.owner, { 'x-mcp-toolsets': 'all' });
    expect(readOnly.tools).toEqual(all.tools.filter((name) => readOnly.tools.includes(name)));
    for (const write of ['create_record', 'build_course', 'update_my_account', 'upload_file']) expect(readOnly.tools).not.toContain(write);
    expect((await list(tokens.owner, { 'x-mcp-toolsets': 'all' })).tools).toEqual(all.tools);
    expect((await list(tokens.owner, { 'x-mcp-toolsets': 'site, courses' })).tools).toEqual((await list(tokens.owner, { 'x-mcp-toolsets': 'courses,site' })).tools);
  });

  it('reads the headers as HTTP fields: any case, spaces around values, 1 and 0, commas to spare', async () => {
    const all = await list(tokens.owner, { 'x-mcp-toolsets': 'all' });
    const readOnly = await list(tokens.owner, { 'x-mcp-toolsets': 'all', 'x-mcp-readonly': 'true' });
    expect(readOnly.tools.length).toBeLessThan(all.tools.length);
    for (const value of ['1', ' TRUE ', 'True']) expect((await list(tokens.owner, { 'x-mcp-toolsets': 'all', 'x-mcp-readonly': value })).tools, value).toEqual(readOnly.tools);
    for (const value of ['false', '0', ' False', '']) expect((await list(tokens.owner, { 'x-mcp-toolsets': 'all', 'x-mcp-readonly': value })).tools, value).toEqual(all.tools);
    const chosen = (await list(tokens.owner, { 'x-mcp-toolsets': 'courses,students' })).tools;
    expect((await list(tokens.owner, { 'x-mcp-toolsets': ' Courses , ,STUDENTS,' })).tools).toEqual(chosen);
    expect((await list(tokens.owner, { 'x-mcp-toolsets': 'ALL' })).tools).toEqual(all.tools);
    // Commas alone name nothing: the caller's defaults, as without the header.
    expect((await list(tokens.owner, { 'x-mcp-toolsets': ' , ' })).tools).toEqual((await list(tokens.owner)).tools);
  });

  it('an unknown tool is a tool error naming the closest one, its name cut to 100 characters', async () => {
    const call = async (name: string) => resultOf(await mcpPost(ctx.server.issuer, toolCall(name), { authorization: `Bearer ${tokens.owner}` })) as { isError?: boolean; content: { text: string }[] };
    expect(await call('list_record')).toEqual({ isError: true, content: [{ type: 'text', text: 'No tool named "list_record"; did you mean list_records?' }] });
    expect(await call('qqqqqqqqqqqq')).toEqual({ isError: true, content: [{ type: 'text', text: 'No tool named "qqqqqqqqqqqq"' }] });
    expect((await call('q'.repeat(300))).content[0]!.text).toBe(`No tool named "${'q'.repeat(100)}"`);
  });

  it('an unknown toolset or read-only value is refused with the names to use', async () => {
    const refusal = async (headers: Record<string, string>) => {
      const res = await mcpPost(ctx.server.issuer, rpc('tools/list'), { authorization: `Bearer ${tokens.owner}`, headers });
      expect(res.status).toBe(400);
      return (res.json as { error: { code: number; message: string } }).error;
    };
    expect(await refusal({ 'x-mcp-toolsets': `courses, billing,${'x'.repeat(50)}` })).toEqual({
      code: -32600,
      message: `Invalid Request: Unknown toolset "billing", "${'x'.repeat(30)}" in X-MCP-Toolsets; the toolsets are catalog, learner, courses, students, commerce, community, analytics, site, or all`,
    });
    expect(await refusal({ 'x-mcp-readonly': `yes${'!'.repeat(40)}` })).toEqual({ code: -32600, message: `Invalid Request: X-MCP-Readonly must be true or false, not "yes${'!'.repeat(17)}"` });
    // Anonymous callers are refused the same way.
    const anonymous = await mcpPost(ctx.server.issuer, rpc('tools/list'), { headers: { 'x-mcp-readonly': 'maybe' } });
    expect(anonymous.status).toBe(400);
  });

  it('a tool left out of a list still answers as its scopes say: 403 for a student, 401 for nobody', async () => {
    const forbidden = await mcpPost(ctx.server.issuer, toolCall('list_records', { area: 'students' }), { authorization: `Bearer ${tokens.student}` });
    expect(forbidden.status).toBe(403);
    expect(parseChallenge(forbidden.headers.get('www-authenticate')).params.scope).toBe('students:read');
    const anonymous = await mcpPost(ctx.server.issuer, toolCall('build_course', { course: { title: 'x' } }));
    expect(anonymous.status).toBe(401);
    // A tool outside the chosen toolsets is still callable with the scopes for it.
    const settings = await mcpPost(ctx.server.issuer, toolCall('get_school_settings'), { authorization: `Bearer ${tokens.owner}`, headers: { 'x-mcp-toolsets': 'learner' } });
    expect((resultOf(settings) as { isError?: boolean }).isError ?? false).toBe(false);
  });

  it('compresses the list for a client that accepts gzip', async () => {
    const res = await fetch(`${ctx.server.issuer}/mcp`, {
      method: 'POST',
      headers: { accept: MCP_ACCEPT, 'content-type': 'application/json', 'accept-encoding': 'gzip', authorization: `Bearer ${tokens.owner}`, 'x-mcp-toolsets': 'all' },
      body: JSON.stringify(rpc('tools/list')),
    });
    expect(res.status).toBe(200);
    // fetch decompresses what it is sent; the header says it was compressed.
    expect(res.headers.get('content-encoding')).toBe('gzip');
    const body = (await res.json()) as { result: { tools: unknown[] } };
    expect(body.result.tools.length).toBeGreaterThan(20);
    // Without Accept-Encoding the same list comes as it is.
    const plain = await fetch(`${ctx.server.issuer}/mcp`, {
      method: 'POST',
      headers: { accept: MCP_ACCEPT, 'content-type': 'application/json', 'accept-encoding': 'identity', authorization: `Bearer ${tokens.owner}`, 'x-mcp-toolsets': 'all' },
      body: JSON.stringify(rpc('tools/list')),
    });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(((await plain.json()) as { result: { tools: unknown[] } }).result.tools).toEqual(body.result.tools);
  });
});
