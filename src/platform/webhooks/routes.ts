import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Deps } from '../../deps.ts';
import { documented, errorResponses as errors } from '../../http/routes/route-docs.ts';
import { patchBody } from '../../http/requests/patch-body.ts';
import { declareRoute } from '../../resource/declare-route.ts';
import { PlatformError } from '../errors.ts';
import { WEBHOOK_SCOPE, WebhookService, type SubscriptionWriter } from './subscriptions.ts';
import { CREATED_SUBSCRIPTION, DELIVERY, page, PAGE_QUERY, SUBSCRIPTION, SUBSCRIPTION_BODY, SUBSCRIPTION_PATCH } from './schemas.ts';
import { API_PREFIX } from '../routes/paths.ts';

const idParams = z.object({ id: z.string().max(100) });
const deliveryParams = z.object({ id: z.string().max(100), delivery_id: z.string().max(100) });

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

  declareRoute(
    app,
    deps,
    {
      method: 'POST',
      path: base,
      operationId: 'createWebhook',
      ...guarded,
      schema: {
        tags,
        summary: 'Subscribe a receiver to events',
        description:
          'Each event also needs the read scope of the records it carries (403 insufficient_scope naming them otherwise). Answers with the signing secret, shown this once. Payloads are signed the Standard Webhooks way (webhook-id, webhook-timestamp, webhook-signature); see /auth.md.',
        body: SUBSCRIPTION_BODY,
        response: { 201: CREATED_SUBSCRIPTION, ...errors([400, 401, 403]) },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return service.create(request.body, writerOf(request));
    },
  );

  declareRoute(
    app,
    deps,
    {
      method: 'GET',
      path: base,
      operationId: 'listWebhooks',
      ...guarded,
      schema: {
        tags,
        summary: 'List webhook subscriptions',
        description: 'Oldest first. Never shows the secrets.',
        querystring: PAGE_QUERY,
        response: { 200: page(SUBSCRIPTION), ...errors([400, 401, 403]) },
      },
    },
    async (request) => {
      const { limit, cursor } = request.query;
      return service.list(limit, cursor);
    },
  );

  declareRoute(
    app,
    deps,
    {
      method: 'GET',
      path: `${base}/:id`,
      operationId: 'getWebhook',
      ...guarded,
      schema: { tags, summary: 'Read a webhook subscription', params: idParams, response: { 200: SUBSCRIPTION, ...errors([401, 403, 404]) } },
    },
    async (request) => service.get(request.params.id),
  );

  declareRoute(
    app,
    deps,
    {
      method: 'PATCH',
      path: `${base}/:id`,
      operationId: 'updateWebhook',
      ...guarded,
      schema: {
        tags,
        summary: 'Change a webhook subscription',
        description:
          'enabled=false stops deliveries; enabled=true turns a subscription disabled after repeated failure back on, and its pending deliveries resume. The token must hold the read scope of every event the subscription will have, as when subscribing.',
        params: idParams,
        body: patchBody(SUBSCRIPTION_PATCH),
        response: { 200: SUBSCRIPTION, ...errors([400, 401, 403, 404]) },
      },
    },
    async (request) => service.update(request.params.id, request.body, writerOf(request)),
  );

  declareRoute(
    app,
    deps,
    {
      method: 'DELETE',
      path: `${base}/:id`,
      operationId: 'deleteWebhook',
      ...guarded,
      schema: {
        tags,
        summary: 'Delete a webhook subscription',
        description: 'Its deliveries and their log go with it.',
        params: idParams,
        response: { 204: documented(z.null(), 'Deleted'), ...errors([401, 403, 404]) },
      },
    },
    async (request, reply) => {
      await service.delete(request.params.id);
      return reply.code(204).send(null);
    },
  );

  declareRoute(
    app,
    deps,
    {
      method: 'GET',
      path: `${base}/:id/deliveries`,
      operationId: 'listWebhookDeliveries',
      ...guarded,
      schema: {
        tags,
        summary: 'The delivery log of a subscription',
        description: "Newest first: each delivery's status, attempts and its last attempt's status code, duration and error.",
        params: idParams,
        querystring: PAGE_QUERY,
        response: { 200: page(DELIVERY), ...errors([400, 401, 403, 404]) },
      },
    },
    async (request) => {
      const { limit, cursor } = request.query;
      return service.deliveries(request.params.id, limit, cursor);
    },
  );

  declareRoute(
    app,
    deps,
    {
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
    },
    async (request, reply) => {
      const { id, delivery_id: deliveryId } = request.params;
      reply.code(202);
      return service.redeliver(id, deliveryId);
    },
  );
}
