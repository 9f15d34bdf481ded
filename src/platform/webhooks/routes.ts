import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.ts';
import { errorResponses as errors } from '../../http/routes/route-docs.ts';
import { declareRoute } from '../../resource/declare-route.ts';
import { eventArea, WEBHOOK_EVENT_TYPES, WEBHOOK_EVENTS } from './events.ts';
import { PlatformError } from '../errors.ts';
import { WEBHOOK_SCOPE, WEBHOOK_URL_MAX, WebhookService, type SubscriptionInput, type SubscriptionPatch, type SubscriptionWriter } from './subscriptions.ts';
import { API_PREFIX } from '../routes/paths.ts';

const EVENT_LIST = WEBHOOK_EVENT_TYPES.map((type) => `\`${type}\` (needs ${eventArea(type).readScope}): ${WEBHOOK_EVENTS[type].when}`).join(' ');

/**
 * The event names are checked by the service rather than by an `enum` here,
 * so that an unknown one is refused with its name (400 invalid_request).
 */
const EVENTS = { type: 'array', minItems: 1, maxItems: 50, items: { type: 'string', maxLength: 100 }, description: `Event types to receive. ${EVENT_LIST}` };
const URL_FIELD = { type: 'string', minLength: 1, maxLength: WEBHOOK_URL_MAX, description: 'Receiver: https at a public address (or a host of WEBHOOK_ALLOW_HOSTS), or http on loopback where WEBHOOK_HTTP_LOOPBACK allows it' };
const DESCRIPTION = { type: 'string', nullable: true, maxLength: 500, description: 'What the receiver is, for people' };

const SUBSCRIPTION = {
  type: 'object',
  description: 'A webhook subscription. Its signing secret is shown only when it is created.',
  properties: {
    id: { type: 'string' },
    url: { type: 'string' },
    events: { type: 'array', items: { type: 'string' } },
    description: { type: 'string', nullable: true },
    enabled: { type: 'boolean', description: 'false: nothing is sent, and events meanwhile are not kept for it' },
    disabled_reason: { type: 'string', nullable: true, description: 'Why it was disabled (through the API, or after repeated failure)' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
};

const CREATED = {
  ...SUBSCRIPTION,
  properties: {
    ...SUBSCRIPTION.properties,
    secret: { type: 'string', description: 'The signing secret (whsec_ and base64), shown this once: keep it to verify webhook-signature' },
  },
};

const DELIVERY = {
  type: 'object',
  description: 'One event sent to one subscription, and how its last attempt went.',
  properties: {
    id: { type: 'string' },
    event_id: { type: 'string', description: 'The event (the webhook-id header)' },
    event_type: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'succeeded', 'failed'] },
    attempts: { type: 'integer', description: 'Attempts made so far' },
    next_attempt_at: { type: 'string', format: 'date-time', nullable: true },
    last_attempt_at: { type: 'string', format: 'date-time', nullable: true },
    last_status_code: { type: 'integer', nullable: true, description: 'The receiver\'s HTTP status; null when it did not answer' },
    last_duration_ms: { type: 'integer', nullable: true },
    last_error: { type: 'string', nullable: true, description: 'Why the last attempt failed' },
    created_at: { type: 'string', format: 'date-time' },
  },
};

const page = (item: object) => ({ type: 'object', properties: { data: { type: 'array', items: item }, next_cursor: { type: 'string' } } });
const PAGE_QUERY = {
  type: 'object',
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 20, description: 'Page size' },
    cursor: { type: 'string', maxLength: 500, description: 'next_cursor of the previous page' },
  },
};
const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 100 } } };
const deliveryParams = { type: 'object', required: ['id', 'delivery_id'], properties: { id: { type: 'string', maxLength: 100 }, delivery_id: { type: 'string', maxLength: 100 } } };

/** The caller that writes a subscription through the API (the guard has refused anonymous ones). */
function writerOf(request: FastifyRequest): SubscriptionWriter {
  const caller = request.caller;
  if (caller.kind !== 'token') throw new PlatformError('invalid_request', 'This operation needs a Bearer access token', 401);
  return { scopes: caller.scopes, resource: 'api' };
}

/**
 * /api/v1/webhooks: subscriptions, their delivery log and redelivery. Every
 * operation needs school:write, reading included: a receiver's URL often
 * holds a secret of its own. Subscribing to an event also needs the read
 * scope of the records it carries (WEBHOOK_EVENTS).
 */
export function registerWebhookRoutes(app: FastifyInstance, deps: Deps): void {
  const service = new WebhookService(deps);
  const tags = ['webhooks'];
  const base = `${API_PREFIX}/webhooks`;
  const guarded = { scopes: [WEBHOOK_SCOPE] };
  type Page = { limit?: number; cursor?: string };

  declareRoute(app, deps, {
    method: 'POST',
    path: base,
    operationId: 'createWebhook',
    ...guarded,
    schema: {
      tags,
      summary: 'Subscribe a receiver to events',
      description: 'Each event also needs the read scope of the records it carries (403 insufficient_scope naming them otherwise). Answers with the signing secret, shown this once. Payloads are signed the Standard Webhooks way (webhook-id, webhook-timestamp, webhook-signature); see /auth.md.',
      body: { type: 'object', additionalProperties: false, required: ['url', 'events'], properties: { url: URL_FIELD, events: EVENTS, description: DESCRIPTION } },
      response: { 201: CREATED, ...errors([400, 401, 403]) },
    },
  }, async (request, reply) => {
    reply.code(201);
    return service.create(request.body as SubscriptionInput, writerOf(request));
  });

  declareRoute(app, deps, {
    method: 'GET',
    path: base,
    operationId: 'listWebhooks',
    ...guarded,
    schema: { tags, summary: 'List webhook subscriptions', description: 'Oldest first. Never shows the secrets.', querystring: PAGE_QUERY, response: { 200: page(SUBSCRIPTION), ...errors([400, 401, 403]) } },
  }, async (request) => {
    const { limit, cursor } = request.query as Page;
    return service.list(limit, cursor);
  });

  declareRoute(app, deps, {
    method: 'GET',
    path: `${base}/:id`,
    operationId: 'getWebhook',
    ...guarded,
    schema: { tags, summary: 'Read a webhook subscription', params: idParams, response: { 200: SUBSCRIPTION, ...errors([401, 403, 404]) } },
  }, async (request) => service.get((request.params as { id: string }).id));

  declareRoute(app, deps, {
    method: 'PATCH',
    path: `${base}/:id`,
    operationId: 'updateWebhook',
    ...guarded,
    schema: {
      tags,
      summary: 'Change a webhook subscription',
      description: 'enabled=false stops deliveries; enabled=true turns a subscription disabled after repeated failure back on, and its pending deliveries resume. The token must hold the read scope of every event the subscription will have, as when subscribing.',
      params: idParams,
      body: { type: 'object', additionalProperties: false, minProperties: 1, properties: { url: URL_FIELD, events: EVENTS, description: DESCRIPTION, enabled: { type: 'boolean' } } },
      response: { 200: SUBSCRIPTION, ...errors([400, 401, 403, 404]) },
    },
  }, async (request) => service.update((request.params as { id: string }).id, request.body as SubscriptionPatch, writerOf(request)));

  declareRoute(app, deps, {
    method: 'DELETE',
    path: `${base}/:id`,
    operationId: 'deleteWebhook',
    ...guarded,
    schema: { tags, summary: 'Delete a webhook subscription', description: 'Its deliveries and their log go with it.', params: idParams, response: { 204: { type: 'null', description: 'Deleted' }, ...errors([401, 403, 404]) } },
  }, async (request, reply) => {
    await service.delete((request.params as { id: string }).id);
    return reply.code(204).send();
  });

  declareRoute(app, deps, {
    method: 'GET',
    path: `${base}/:id/deliveries`,
    operationId: 'listWebhookDeliveries',
    ...guarded,
    schema: { tags, summary: 'The delivery log of a subscription', description: 'Newest first: each delivery\'s status, attempts and its last attempt\'s status code, duration and error.', params: idParams, querystring: PAGE_QUERY, response: { 200: page(DELIVERY), ...errors([400, 401, 403, 404]) } },
  }, async (request) => {
    const { limit, cursor } = request.query as Page;
    return service.deliveries((request.params as { id: string }).id, limit, cursor);
  });

  declareRoute(app, deps, {
    method: 'POST',
    path: `${base}/:id/deliveries/:delivery_id/redeliver`,
    operationId: 'redeliverWebhook',
    ...guarded,
    schema: {
      tags,
      summary: 'Send a delivery again',
      description: 'A new delivery of the same event (same webhook-id), due now (for a disabled subscription, once it is enabled again), with retries of its own; answers 202 with it.',
      params: deliveryParams,
      response: { 202: DELIVERY, ...errors([401, 403, 404]) },
    },
  }, async (request, reply) => {
    const { id, delivery_id: deliveryId } = request.params as { id: string; delivery_id: string };
    reply.code(202);
    return service.redeliver(id, deliveryId);
  });
}
