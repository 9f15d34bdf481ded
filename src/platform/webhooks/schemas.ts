import { z } from 'zod';
import { PAGE_SIZE } from '../page-size.ts';
import { eventArea, WEBHOOK_EVENT_TYPES, WEBHOOK_EVENTS } from './events.ts';

/** A receiver's URL at most this long. */
export const WEBHOOK_URL_MAX = 2000;

const EVENT_LIST = WEBHOOK_EVENT_TYPES.map((type) => `\`${type}\` (needs ${eventArea(type).readScope}): ${WEBHOOK_EVENTS[type].when}`).join(' ');

/**
 * The event names are checked by the service rather than by an enum here,
 * so that an unknown one is refused with its name (400 invalid_request).
 */
const EVENTS = z.array(z.string().max(100)).min(1).max(50).describe(`Event types to receive. ${EVENT_LIST}`);
const URL_FIELD = z.string().min(1).max(WEBHOOK_URL_MAX).describe('Receiver: https at a public address (or a host of WEBHOOK_ALLOW_HOSTS), or http on loopback where WEBHOOK_HTTP_LOOPBACK allows it');
const DESCRIPTION = z.string().max(500).nullable().describe('What the receiver is, for people');

/** What POST /api/v1/webhooks and the create_webhook tool take. */
export const SUBSCRIPTION_BODY = z.strictObject({ url: URL_FIELD, events: EVENTS, description: DESCRIPTION.optional() });
export type SubscriptionInput = z.infer<typeof SUBSCRIPTION_BODY>;

/** What PATCH /api/v1/webhooks/{id} takes. */
export const SUBSCRIPTION_PATCH = z.strictObject({ url: URL_FIELD.optional(), events: EVENTS.optional(), description: DESCRIPTION.optional(), enabled: z.boolean().optional() });
export type SubscriptionPatch = z.infer<typeof SUBSCRIPTION_PATCH>;

const TIME = z.iso.datetime({ offset: true });

export const SUBSCRIPTION = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    description: z.string().nullable(),
    enabled: z.boolean().describe('false: nothing is sent, and events meanwhile are not kept for it'),
    disabled_reason: z.string().nullable().describe('Why it was disabled (through the API, or after repeated failure)'),
    created_at: TIME,
    updated_at: TIME,
  })
  .describe('A webhook subscription. Its signing secret is shown only when it is created.');

export const CREATED_SUBSCRIPTION = SUBSCRIPTION.extend({
  secret: z.string().describe('The signing secret (whsec_ and base64), shown this once: keep it to verify webhook-signature'),
});

export const DELIVERY = z
  .object({
    id: z.string(),
    event_id: z.string().describe('The event (the webhook-id header)'),
    event_type: z.string(),
    status: z.enum(['pending', 'succeeded', 'failed']),
    attempts: z.int().describe('Attempts made so far'),
    next_attempt_at: TIME.nullable(),
    last_attempt_at: TIME.nullable(),
    last_status_code: z.int().nullable().describe("The receiver's HTTP status; null when it did not answer"),
    last_duration_ms: z.int().nullable(),
    last_error: z.string().nullable().describe('Why the last attempt failed'),
    created_at: TIME,
  })
  .describe('One event sent to one subscription, and how its last attempt went.');

export type SubscriptionView = z.infer<typeof SUBSCRIPTION>;
export type DeliveryView = z.infer<typeof DELIVERY>;

/** A page of a list, oldest or newest first, and where the next one starts. */
export const page = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), next_cursor: z.string().optional() });

export const PAGE_QUERY = z.object({
  limit: z.coerce.number().int().min(PAGE_SIZE.min).max(PAGE_SIZE.max).default(PAGE_SIZE.records).describe('Page size'),
  cursor: z.string().max(500).optional().describe('next_cursor of the previous page'),
});
