/**
 * Every tool's answer, as an agent reads it: each tool in the owner's full
 * list (and sign_in) is called once over real HTTP on each store, and its
 * text must carry its structured content (names, percentages, next_cursor),
 * since some clients show the model only one of the two. An answer too large
 * for a model's context is refused with how to ask for less. The schemas are
 * held to what they cost: no regular expressions, plain-English titles.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpPost, resultOf, rpc, summaryOf, toolCall } from '../helpers/mcp.ts';
import { marker, startRecordsServer, type RecordsServer } from '../helpers/records.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { roleToken } from '../helpers/mcp-lists.ts';

type CallResult = { content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };
type Args = Record<string, unknown>;

describe.each(STORE_KINDS)('MCP answers (%s)', (kind) => {
  let ctx: RecordsServer;
  let token: string;
  const ALL = { 'x-mcp-toolsets': 'all' };

  beforeAll(async () => {
    ctx = await startRecordsServer(kind);
    token = await roleToken(ctx.server, 'owner');
  });
  afterAll(async () => {
    await ctx?.server.stop();
  });

  const listed = async () =>
    resultOf(await mcpPost(ctx.server.issuer, rpc('tools/list'), { authorization: `Bearer ${token}`, headers: ALL })).tools as { name: string; title: string; inputSchema: unknown }[];
  const call = async (name: string, args: Args): Promise<CallResult> =>
    resultOf(await mcpPost(ctx.server.issuer, toolCall(name, args), { authorization: `Bearer ${token}`, headers: ALL })) as CallResult;

  it('every tool answers with a text that is its summary and then its structured content', async () => {
    const course = await ctx.maker.make('courses', { status: 'draft' });
    const section = await ctx.maker.make('sections', { course_id: course.id });
    const lesson = await ctx.maker.make('lessons', { section_id: section.id });
    const student = await ctx.maker.make('students');
    const enrollment = await ctx.maker.make('enrollments', { student_id: student.id, course_id: course.id });
    const webhook = { id: '' };
    const file = { id: '' };
    // One call per tool, in an order where each finds what it needs.
    const plans: [string, () => Args][] = [
      ['get_site_info', () => ({})],
      ['get_course', () => ({ id: course.id })],
      ['list_records', () => ({ area: 'students', limit: 1 })],
      ['get_record', () => ({ id: student.id })],
      ['create_record', () => ({ area: 'coupons', values: { code: marker('C').toUpperCase(), percent_off: 10 } })],
      ['update_record', () => ({ id: student.id, values: { name: 'Renamed Student' } })],
      ['get_my_account', () => ({})],
      ['get_my_progress', () => ({})],
      ['list_my_enrollments', () => ({})],
      ['list_my_lessons', () => ({})],
      ['list_my_orders', () => ({})],
      ['list_my_subscriptions', () => ({})],
      ['update_my_account', () => ({ name: 'The Owner' })],
      ['build_course', () => ({ course: { title: `Built ${marker()}` }, sections: [{ title: 'One', lessons: [{ title: 'First' }] }] })],
      ['reorder_curriculum', () => ({ course_id: course.id, sections: [section.id] })],
      ['publish_course', () => ({ id: course.id })],
      ['enroll_student_by_email', () => ({ email: `${marker()}@learners.test`, course_id: course.id })],
      ['get_course_progress', () => ({ course_id: course.id })],
      ['set_lesson_completion', () => ({ enrollment_id: enrollment.id, lesson_id: lesson.id })],
      ['get_analytics', () => ({ from: '2026-01-01' })],
      ['get_school_summary', () => ({})],
      ['get_school_settings', () => ({})],
      ['update_school_settings', () => ({ name: 'Renamed School', dry_run: true })],
      ['get_appearance', () => ({})],
      ['update_appearance', () => ({ primary_color: '#224466', dry_run: true })],
      ['create_webhook', () => ({ url: 'http://127.0.0.1:9/answers', events: ['course.published'] })],
      ['list_webhooks', () => ({})],
      ['delete_webhook', () => ({ id: webhook.id })],
      ['upload_file', () => ({ name: 'notes.txt', content_type: 'text/plain', content_base64: Buffer.from('hello').toString('base64') })],
      ['list_files', () => ({})],
      ['delete_file', () => ({ id: file.id })],
      ['delete_record', () => ({ id: enrollment.id })],
      ['list_activity', () => ({ limit: 3 })],
      ['set_my_lesson_completion', () => ({ lesson_id: lesson.id })],
    ];
    const names = (await listed()).map((t) => t.name);
    // A tool added to the lists without a plan here fails this test.
    expect(plans.map(([name]) => name).sort()).toEqual(names.sort());
    for (const [name, plan] of plans) {
      const result = await call(name, plan());
      if (name === 'set_my_lesson_completion') {
        // The owner is no student: a tool error, whose text says why.
        expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Your account has no student record at this school' }] });
        continue;
      }
      expect(result.isError ?? false, `${name}: ${JSON.stringify(result.content)}`).toBe(false);
      expect(summaryOf(result), name).toMatch(/\S/);
      if (name === 'create_webhook') webhook.id = String((result.structuredContent!.webhook as { id: string }).id);
      if (name === 'upload_file') file.id = String((result.structuredContent!.file as { id: string }).id);
    }
    // sign_in, the anonymous caller's way in, answers 401 with what to do.
    const signIn = await mcpPost(ctx.server.issuer, toolCall('sign_in'));
    expect(signIn.status).toBe(401);
  });

  it('a next_cursor is in the text as in the structured content', async () => {
    for (let i = 0; i < 3; i++) await ctx.maker.make('students');
    const page = await call('list_records', { area: 'students', limit: 2 });
    const cursor = String(page.structuredContent!.next_cursor);
    expect(cursor).toMatch(/\S/);
    expect(summaryOf(page)).toMatch(/more with next_cursor/);
    expect(page.content[0]!.text).toContain(`"next_cursor":"${cursor}"`);
  });

  it('an answer over 100,000 characters is refused, saying how to ask for less', async () => {
    const long = 'x'.repeat(9_000);
    for (let i = 0; i < 12; i++) await ctx.maker.make('posts', { body: long });
    const refused = await call('list_records', { area: 'posts', limit: 50, detail: true });
    expect(refused.isError).toBe(true);
    expect(refused.content[0]!.text).toMatch(/^The answer would be \d+ characters, more than 100000: ask for less/);
    // The same list without detail leaves the long text out and is served.
    const concise = await call('list_records', { area: 'posts', limit: 50 });
    expect(concise.isError ?? false).toBe(false);
    expect(JSON.stringify(concise.structuredContent)).not.toContain(long);
  });

  it('no schema holds a regular expression, though calls are still checked by them; every title is plain English', async () => {
    for (const tool of await listed()) {
      expect(JSON.stringify(tool.inputSchema), tool.name).not.toContain('"pattern":"');
      expect(tool.title, tool.name).toMatch(/^[A-Z][a-z']* [a-z]/);
      expect(tool.title, tool.name).not.toMatch(/\ba [aeiou]/i);
    }
    // The description says what the pattern did, and the call is checked against it.
    const settings = (await listed()).find((t) => t.name === 'update_school_settings')!.inputSchema as { properties: { currency: { description: string } } };
    expect(settings.properties.currency.description).toBe('ISO 4217 code: three upper-case letters');
    const lower = await call('update_school_settings', { currency: 'usd', dry_run: true });
    expect(lower.isError).toBe(true);
    expect(lower.content[0]!.text).toMatch(/^currency: /);
  });
});
