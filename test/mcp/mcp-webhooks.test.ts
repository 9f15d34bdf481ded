/**
 * The webhook tools at /mcp over real HTTP: create_webhook answers the
 * secret once, list_webhooks never shows it, delete_webhook removes the
 * subscription; each needs its scope (403 naming it), an event needs the
 * read scope of what it carries, learner events are refused while learners
 * are pseudonymized, and bad input is a tool error with the API's wording.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseChallenge } from '../helpers/bearer.ts';
import { mcpPost, resultOf, toolCall } from '../helpers/mcp.ts';
import { startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { allScopesBut, api, tokenSource } from '../helpers/records.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

type ToolResult = { content: { type: string; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

describe.each(STORE_KINDS)('MCP webhook tools (%s)', (kind) => {
  let server: FlowServer;
  let token: (scope: string) => Promise<string>;

  beforeAll(async () => {
    server = await startFlowServer(kind, { WEBHOOK_POLL_INTERVAL_MS: '600000' });
    token = tokenSource(server);
  });
  afterAll(async () => {
    await server?.stop();
  });

  const call = async (name: string, args: Record<string, unknown>, scope = 'school:write orders:read') =>
    resultOf(await mcpPost(server.issuer, toolCall(name, args), { authorization: `Bearer ${await token(scope)}` })) as unknown as ToolResult;

  it('create_webhook shows the secret once; list_webhooks never; delete_webhook removes it', async () => {
    const created = await call('create_webhook', { url: 'http://127.0.0.1:9/hooks', events: ['order.paid'], description: 'books' });
    expect(created.isError).toBeUndefined();
    const webhook = created.structuredContent!.webhook as Record<string, unknown>;
    expect(webhook).toMatchObject({ id: expect.stringMatching(/^wh_/), url: 'http://127.0.0.1:9/hooks', events: ['order.paid'], enabled: true, secret: expect.stringMatching(/^whsec_/) });
    expect(created.content[0]!.text).toContain(String(webhook.secret));
    const listed = await call('list_webhooks', {});
    expect(JSON.stringify(listed)).not.toContain(String(webhook.secret).slice(6));
    expect((listed.structuredContent!.webhooks as Record<string, unknown>[]).map((w) => w.id)).toContain(webhook.id);
    const preview = await call('delete_webhook', { id: webhook.id, dry_run: true });
    expect(preview.structuredContent).toEqual({ dry_run: true, deleted: webhook.id });
    expect((await api(server.issuer, 'GET', `/webhooks/${String(webhook.id)}`, { token: await token('school:write') })).status).toBe(200);
    const deleted = await call('delete_webhook', { id: webhook.id });
    expect(deleted.structuredContent).toEqual({ dry_run: false, deleted: webhook.id });
    const after = await api(server.issuer, 'GET', `/webhooks/${String(webhook.id)}`, { token: await token('school:write') });
    expect(after.status).toBe(404);
  });

  it('create_webhook with dry_run checks the URL and events and creates nothing', async () => {
    const before = (await call('list_webhooks', { limit: 50 })).structuredContent!.webhooks as unknown[];
    const preview = await call('create_webhook', { url: 'http://127.0.0.1:9/dry', events: ['order.paid', 'order.paid'], dry_run: true });
    expect(preview.structuredContent).toEqual({ dry_run: true, webhook: { url: 'http://127.0.0.1:9/dry', events: ['order.paid'], description: null, enabled: true, disabled_reason: null } });
    expect((await call('list_webhooks', { limit: 50 })).structuredContent!.webhooks).toHaveLength(before.length);
    const refused = await call('create_webhook', { url: 'https://10.0.0.1/x', events: ['order.paid'], dry_run: true });
    expect(refused.isError).toBe(true);
  });

  it("bad input is a tool error in the API's words", async () => {
    const unknown = await call('create_webhook', { url: 'http://127.0.0.1:9/hooks', events: ['order.lost'] });
    expect(unknown.isError).toBe(true);
    expect(unknown.content[0]!.text).toContain('unknown event "order.lost"');
    const privateUrl = await call('create_webhook', { url: 'https://10.0.0.1/hooks', events: ['order.paid'] });
    expect(privateUrl.isError).toBe(true);
    expect(privateUrl.content[0]!.text).toMatch(/^url: /);
    const gone = await call('delete_webhook', { id: 'wh_nothing' });
    expect(gone.isError).toBe(true);
    expect(gone.content[0]!.text).toBe('No webhook with id wh_nothing');
  });

  it('each tool needs its scope: 403 insufficient_scope naming it', async () => {
    for (const [name, scope, args, needs] of [
      ['list_webhooks', 'school:write', {}, undefined],
      ['create_webhook', 'school:write', { url: 'http://127.0.0.1:9/x', events: ['order.paid'] }, 'school:write orders:read'],
      ['delete_webhook', 'school:write', { id: 'wh_x' }, undefined],
    ] as const) {
      const res = await mcpPost(server.issuer, toolCall(name, args), { authorization: `Bearer ${await token(allScopesBut(scope))}` });
      expect(res.status, name).toBe(403);
      // A step-up asks for every scope the call needs: create_webhook's events add theirs.
      expect(parseChallenge(res.headers.get('www-authenticate')).params).toMatchObject({ error: 'insufficient_scope', scope: needs ?? scope });
    }
  });

  it('create_webhook needs the read scope of each event it subscribes to: 403 naming them, before the tool runs', async () => {
    for (const [events, scope] of [
      [['student.created'], 'school:write students:read'],
      [['order.paid', 'form_submission.created'], 'school:write orders:read forms:read'],
    ] as const) {
      const res = await mcpPost(server.issuer, toolCall('create_webhook', { url: 'http://127.0.0.1:9/x', events }), { authorization: `Bearer ${await token('school:write')}` });
      expect(res.status, JSON.stringify(events)).toBe(403);
      expect(parseChallenge(res.headers.get('www-authenticate')).params).toMatchObject({ error: 'insufficient_scope', scope });
    }
    // Garbage in events names no scope: the tool's own validation answers it.
    const garbage = await call('create_webhook', { url: 'http://127.0.0.1:9/x', events: [7, null, 'nope'] }, 'school:write');
    expect(garbage.isError).toBe(true);
  });

  it('while learners are pseudonymized, create_webhook refuses the events that carry their names and emails', async () => {
    const scope = 'school:write students:read orders:read forms:read';
    for (const events of [['student.created'], ['order.paid', 'form_submission.created']]) {
      const refused = await call('create_webhook', { url: 'http://127.0.0.1:9/x', events, pseudonymize: true }, scope);
      expect(refused.isError, JSON.stringify(events)).toBe(true);
      expect(refused.content[0]!.text).toMatch(/^events: (student\.created|form_submission\.created) would send learners' names and emails/);
    }
    const ids = await call('create_webhook', { url: 'http://127.0.0.1:9/x', events: ['enrollment.created', 'order.paid'], pseudonymize: true, dry_run: true }, scope);
    expect(ids.isError ?? false, JSON.stringify(ids.content)).toBe(false);
    const unpseudonymized = await call('create_webhook', { url: 'http://127.0.0.1:9/x', events: ['student.created'], dry_run: true }, scope);
    expect(unpseudonymized.isError ?? false).toBe(false);
  });
});
