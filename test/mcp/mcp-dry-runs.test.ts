/**
 * A preview never writes: every MCP tool that takes `dry_run` is called with
 * it, with learner pseudonyms off and on, over real HTTP with the MCP SDK's
 * client, and the database is read before and after each call. Nothing in it
 * may change: no record, no setting, no webhook subscription, no outbox event.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AREA_LIST, type AreaDef } from '../../src/platform/areas.ts';
import { databaseDump } from '../helpers/flow.ts';
import { ALL_SCOPES, api, marker, sampleValue, startRecordsServer, type RecordsServer } from '../helpers/records.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

type CallResult = { content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };
type Args = Record<string, unknown>;

/**
 * Tables that change on every authenticated request (a token's last use, a
 * client's) or belong to sign-in: not what a tool's write touches.
 */
const REQUEST_BOOKKEEPING = new Set(['tokens', 'clients', 'sessions', 'grants', 'password_failures', 'authorization_codes', 'signing_keys', 'idempotency_keys', 'users']);

describe.each(STORE_KINDS)('MCP dry runs write nothing (%s)', (kind) => {
  let ctx: RecordsServer;
  let client: Client;
  let webhookId: string;
  /**
   * How to make valid arguments for each tool that takes dry_run (records it
   * needs are made first, for real), keyed "tool" or "tool area" for the
   * record tools, which are planned once per area.
   */
  const plans = new Map<string, () => Promise<Args>>();
  const toolOf = (plan: string) => plan.split(' ')[0]!;
  /** The tools whose schema takes pseudonymize (those that can show learners). */
  const takesPseudonymize = new Set<string>();

  /**
   * The database as a tool's write would change it. Webhook deliveries are
   * kept by id alone: the delivery worker updates their attempts meanwhile,
   * but only a write creates one.
   */
  async function snapshot(): Promise<Record<string, unknown[]>> {
    const dump = JSON.parse(await databaseDump(ctx.server.databaseUrl)) as Record<string, Record<string, unknown>[]>;
    const out: Record<string, unknown[]> = {};
    for (const [table, rows] of Object.entries(dump)) {
      if (REQUEST_BOOKKEEPING.has(table) || table.startsWith('kysely_')) continue;
      const kept = table === 'webhook_deliveries' ? rows.map((r) => ({ id: r.id })) : rows;
      out[table] = kept.map((r) => JSON.stringify(r)).sort();
    }
    return out;
  }

  function planAreaTools(area: AreaDef): void {
    plans.set(`create_record ${area.name}`, async () => ({ area: area.name, values: await ctx.maker.input(area) }));
    plans.set(`update_record ${area.name}`, async () => {
      const target = await ctx.maker.make(area.name);
      const fresh = await ctx.maker.input(area);
      // Every writable field but the references: new values for the same parents.
      const changed = Object.fromEntries(Object.entries(fresh).filter(([name]) => area.fields[name]?.type !== 'ref'));
      // An area whose required fields are all references (enrollments) changes an optional field.
      const [optional, f] = Object.entries(area.fields).find(([, f]) => !f.readOnly && f.type !== 'ref')!;
      return { id: target.id, values: Object.keys(changed).length ? changed : { [optional]: sampleValue(optional, f) } };
    });
    plans.set(`delete_record ${area.name}`, async () => {
      const target = await ctx.maker.make(area.name);
      // A student with an enrollment: the real delete would take the enrollment with it.
      if (area.name === 'students') await ctx.maker.make('enrollments', { student_id: target.id });
      return { id: target.id };
    });
  }

  beforeAll(async () => {
    ctx = await startRecordsServer(kind);
    // Every event subscribed: a write that slipped through would also leave outbox events.
    const hook = await api(ctx.server.issuer, 'POST', '/webhooks', {
      token: await ctx.token(ALL_SCOPES),
      body: { url: 'http://127.0.0.1:9/dry-run-receiver', events: ['student.created', 'enrollment.created', 'order.paid', 'order.refunded', 'course.published', 'form_submission.created'] },
    });
    expect(hook.status, hook.text).toBe(201);
    webhookId = String(hook.json.id);

    for (const area of AREA_LIST) if (area.writeScope) planAreaTools(area);
    plans.set('update_school_settings', async () => ({ name: `Renamed School ${marker()}`, mcp_student_pseudonyms: true }));
    plans.set('update_appearance', async () => ({ primary_color: '#123456' }));
    plans.set('publish_course', async () => {
      const course = await ctx.maker.make('courses', { status: 'draft' });
      const section = await ctx.maker.make('sections', { course_id: course.id });
      await ctx.maker.make('lessons', { section_id: section.id });
      return { id: course.id };
    });
    plans.set('build_course', async () => ({ course: { title: `Built ${marker()}` }, sections: [{ title: 'One', lessons: [{ title: 'First' }, { title: 'Second' }] }], publish: true }));
    plans.set('enroll_student_by_email', async () => ({ email: `${marker('new')}@learners.test`, course_id: (await ctx.maker.make('courses')).id }));
    plans.set('create_webhook', async () => ({ url: 'http://127.0.0.1:9/another-receiver', events: ['course.published'] }));
    plans.set('delete_webhook', async () => ({ id: webhookId }));

    client = new Client({ name: 'dry-run-test', version: '1.0.0' });
    const headers = { authorization: `Bearer ${await ctx.token(ALL_SCOPES)}`, 'x-mcp-toolsets': 'all' };
    await client.connect(new StreamableHTTPClientTransport(new URL(`${ctx.server.issuer}/mcp`), { requestInit: { headers } }));
    for (const tool of (await client.listTools()).tools) if ('pseudonymize' in (tool.inputSchema.properties ?? {})) takesPseudonymize.add(tool.name);
  });
  afterAll(async () => {
    await client?.close();
    await ctx?.server.stop();
  });

  it('has a plan for every tool that takes dry_run, and for nothing else', async () => {
    const { tools } = await client.listTools();
    const withDryRun = tools.filter((t) => 'dry_run' in (t.inputSchema.properties ?? {})).map((t) => t.name);
    expect(withDryRun).toEqual(expect.arrayContaining(['create_record', 'update_record', 'delete_record', 'build_course', 'publish_course']));
    expect([...new Set([...plans.keys()].map(toolOf))].sort()).toEqual(withDryRun.sort());
    // The record tools are tried on every area they can write.
    const writable = AREA_LIST.filter((a) => a.writeScope).map((a) => a.name);
    for (const tool of ['create_record', 'update_record', 'delete_record']) expect([...plans.keys()].filter((p) => toolOf(p) === tool).map((p) => p.split(' ')[1])).toEqual(writable);
  });

  for (const pseudonymize of [false, true]) {
    it(`every dry run answers what it would do and changes nothing in the store, pseudonymize ${pseudonymize}`, async () => {
      const wrote: string[] = [];
      for (const [label, plan] of plans) {
        const tool = toolOf(label);
        const args = await plan();
        const before = await snapshot();
        const result = (await client.callTool({ name: tool, arguments: { ...args, dry_run: true, ...(takesPseudonymize.has(tool) ? { pseudonymize } : {}) } })) as CallResult;
        expect(result.isError ?? false, `${label}: ${JSON.stringify(result.content)}`).toBe(false);
        expect(result.structuredContent?.dry_run, label).toBe(true);
        const after = await snapshot();
        for (const table of Object.keys(before)) {
          if (JSON.stringify(after[table]) !== JSON.stringify(before[table])) wrote.push(`${label} changed ${table}`);
        }
      }
      expect(wrote).toEqual([]);
    });
  }
});
