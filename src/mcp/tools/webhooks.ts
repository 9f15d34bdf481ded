import { OTHER_RECORDS } from '../../activity/events.ts';
import { z } from 'zod';
import { PlatformError } from '../../platform/errors.ts';
import { eventArea, eventReadScopes, WEBHOOK_EVENT_TYPES } from '../../platform/webhooks/events.ts';
import { WEBHOOK_SCOPE, WebhookService, type SubscriptionWriter } from '../../platform/webhooks/subscriptions.ts';
import { SUBSCRIPTION_BODY } from '../../platform/webhooks/schemas.ts';
import { bulletList } from '../format.ts';
import { learnerRule } from '../learner-data.ts';
import { defineTool, type ToolContext } from '../tool.ts';

/** The same service as /api/v1/webhooks: one set of checks for both faces. */
const service = (ctx: { deps: ConstructorParameters<typeof WebhookService>[0] }) => new WebhookService(ctx.deps);

/** The caller as a subscription's writer; the guard has refused a call without a token. */
function writerOf(ctx: ToolContext): SubscriptionWriter {
  if (ctx.caller.kind !== 'token') throw new PlatformError('invalid_request', 'This tool needs a Bearer access token', 401);
  return { scopes: ctx.caller.scopes, resource: 'mcp' };
}

/**
 * While learners are shown by pseudonyms, an agent cannot send their real
 * names and emails to a URL of its choice either: events whose records hold
 * learner data (learner-data.ts) are refused; the school's staff subscribe
 * to those through the API.
 */
function refuseLearnerEvents(ctx: ToolContext, events: readonly string[]): void {
  if (!ctx.pseudonymized) return;
  const learner = WEBHOOK_EVENT_TYPES.filter((t) => events.includes(t) && learnerRule(eventArea(t).name));
  if (learner.length)
    throw new PlatformError(
      'invalid_request',
      `events: ${learner.join(', ')} would send learners' names and emails while this call shows learners by pseudonyms; subscribe to them through the API (POST /api/v1/webhooks)`,
    );
}

export const listWebhooks = defineTool({
  name: 'list_webhooks',
  toolset: 'site',
  title: 'List webhooks',
  description: "The school's webhook subscriptions: receiver URL, events, whether enabled and why not. Never shows secrets.",
  scopes: [WEBHOOK_SCOPE],
  readOnly: true,
  input: {
    limit: z.number().int().min(1).max(50).default(10).describe('How many results (1-50)'),
    cursor: z.string().max(500).optional().describe('next_cursor from a previous call'),
  },
  async run(ctx, args) {
    const page = await service(ctx).list(args.limit, args.cursor);
    return {
      structured: { webhooks: page.data, ...(page.next_cursor ? { next_cursor: page.next_cursor } : {}) },
      text: bulletList(page.data, (w) => `${w.id}: ${w.url} (${(w.events as string[]).join(', ')})${w.enabled ? '' : ` disabled: ${w.disabled_reason}`}`, page.next_cursor),
    };
  },
});

export const createWebhook = defineTool({
  name: 'create_webhook',
  toolset: 'site',
  title: 'Create a webhook',
  description: `Subscribes a receiver URL (https at a public address; http on loopback where the server allows it) to events: ${WEBHOOK_EVENT_TYPES.map((t) => `${t} (needs ${eventArea(t).readScope})`).join(', ')}. The result holds the signing secret, shown this once: hand it to the receiver to verify webhook-signature (Standard Webhooks).`,
  scopes: [WEBHOOK_SCOPE],
  // Events that carry learners' names are refused while learners are pseudonymized.
  showsLearners: true,
  argumentScopes: (args) => eventReadScopes(Array.isArray((args as { events?: unknown } | null | undefined)?.events) ? (args as { events: unknown[] }).events : []),
  readOnly: false,
  input: {
    // The REST body's fields, with descriptions short enough for a tool list.
    url: SUBSCRIPTION_BODY.shape.url.describe("The receiver's URL"),
    events: SUBSCRIPTION_BODY.shape.events.describe(`Events to receive: ${WEBHOOK_EVENT_TYPES.join(', ')}`),
    description: SUBSCRIPTION_BODY.shape.description.describe('What the receiver is'),
    dry_run: z.boolean().default(false).describe('true: check the URL and events, creating nothing'),
  },
  async run(ctx, args) {
    const input = { url: args.url, events: args.events, ...(args.description !== undefined ? { description: args.description } : {}) };
    refuseLearnerEvents(ctx, args.events);
    if (args.dry_run) {
      const events = await service(ctx).check(input, writerOf(ctx));
      return {
        structured: { dry_run: true, webhook: { url: args.url, events, description: args.description ?? null, enabled: true, disabled_reason: null } },
        text: `Would create a webhook to ${args.url} for ${events.join(', ')}; the URL and events pass the checks.`,
      };
    }
    const created = await service(ctx).create(input, writerOf(ctx));
    return {
      structured: { dry_run: false, webhook: created },
      text: `Created webhook ${String(created.id)} to ${String(created.url)} for ${args.events.join(', ')}.\nSigning secret (shown only now): ${String(created.secret)}`,
    };
  },
});

export const deleteWebhook = defineTool({
  name: 'delete_webhook',
  toolset: 'site',
  title: 'Delete a webhook',
  description: 'Deletes a webhook subscription with its delivery log; nothing more is sent to it.',
  scopes: [WEBHOOK_SCOPE],
  readOnly: false,
  destroys: (args) => ({ recordType: OTHER_RECORDS.webhooks, recordId: String(args.id), label: `webhook ${String(args.id)}` }),
  idempotent: true,
  input: {
    id: z.string().min(1).max(100).describe('The webhook id (wh_…)'),
    dry_run: z.boolean().default(false).describe('true: check it exists, deleting nothing'),
  },
  async run(ctx, args) {
    if (args.dry_run) await service(ctx).exists(args.id);
    else await service(ctx).delete(args.id);
    return { structured: { dry_run: args.dry_run, deleted: args.id }, text: `${args.dry_run ? 'Would delete' : 'Deleted'} webhook ${args.id}.` };
  },
});
