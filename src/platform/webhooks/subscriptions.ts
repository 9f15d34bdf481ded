import { OTHER_RECORDS } from '../../activity/events.ts';
import { writeEntry } from '../../activity/record.ts';
import { randomBytes } from 'node:crypto';
import type { Deps } from '../../deps.ts';
import type { WebhookDelivery, WebhookSubscription } from '../../store/types.ts';
import { checkOutboundTarget, OutboundError } from '../../util/outbound-request.ts';
import { PlatformError } from '../errors.ts';
import { newDeliveryId } from '../../store/kysely/outbox.ts';
import type { Scope } from '../../access/scopes.ts';
import { insufficientScope } from '../../resource/guard.ts';
import type { ResourceName } from '../../resource/protected-resources.ts';
import { eventArea, eventReadScopes, isWebhookEventType, WEBHOOK_EVENT_TYPES } from './events.ts';
import type { DeliveryView, SubscriptionInput, SubscriptionPatch, SubscriptionView } from './schemas.ts';
import { clampPageSize, PAGE_SIZE } from '../page-size.ts';

/**
 * Who writes a subscription: the scopes of the token, and the protected
 * resource (API or MCP) it came through, for the challenge of a 403.
 */
export interface SubscriptionWriter {
  scopes: ReadonlySet<Scope>;
  resource: ResourceName;
}

/** The scope every change of a subscription needs, reading one included: its URL often holds a secret. */
export const WEBHOOK_SCOPE: Scope = 'school:write';

const time = (ms: number) => new Date(ms).toISOString();
const iso = (ms: number | null) => (ms === null ? null : time(ms));

/** A subscription as the API shows it: never its secret, sealed or not. */
export function subscriptionView(s: WebhookSubscription): SubscriptionView {
  return {
    id: s.id,
    url: s.url,
    events: s.events,
    description: s.description,
    enabled: s.enabled,
    disabled_reason: s.disabledReason,
    created_at: time(s.createdAt),
    updated_at: time(s.updatedAt),
  };
}

export function deliveryView(d: WebhookDelivery): DeliveryView {
  return {
    id: d.id,
    event_id: d.eventId,
    event_type: d.eventType,
    status: d.status,
    attempts: d.attempts,
    next_attempt_at: iso(d.nextAttemptAt),
    last_attempt_at: iso(d.lastAttemptAt),
    last_status_code: d.lastStatusCode,
    last_duration_ms: d.lastDurationMs,
    last_error: d.lastError,
    created_at: time(d.createdAt),
  };
}

function encodeCursor(key: [number, string]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** A cursor is base64url JSON [created_at, id] made by encodeCursor; anything else was not made here. */
function decodeCursor(cursor: string): [number, string] {
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    /* v stays undefined: the error below */
  }
  if (!Array.isArray(v) || v.length !== 2 || !Number.isSafeInteger(v[0]) || typeof v[1] !== 'string' || !/^[A-Za-z0-9_-]{1,100}$/.test(v[1])) {
    throw new PlatformError('invalid_request', 'cursor is not one this API returned');
  }
  return v as [number, string];
}

const notFound = (id: string) => new PlatformError('not_found', `No webhook with id ${id}`);

/**
 * Webhook subscriptions: the receiver's URL is checked when it is given
 * (https to a public address, http to loopback only, or a host of
 * WEBHOOK_ALLOW_HOSTS) and again at every delivery; the signing secret is
 * made here, shown once and stored only sealed.
 */
export class WebhookService {
  constructor(private readonly deps: Deps) {}

  private async checkUrl(url: string): Promise<void> {
    const { timeoutMs, allowHosts, allowHttp } = this.deps.config.webhooks;
    try {
      await checkOutboundTarget(url, { timeoutMs, allowHosts: new Set(allowHosts), allowHttp });
    } catch (err) {
      if (!(err instanceof OutboundError)) throw err;
      // What is wrong with the URL as written is said; what its host resolves to, or whether it
      // resolves at all, is not (that would map the names of the server's own network). The
      // reason goes to the log.
      const why = err.reason === 'invalid_url' ? err.message : 'no receiver can be used at this address';
      const rule = allowHttp === 'loopback' ? 'receivers must be https at a public address, or http on loopback' : 'receivers must be https at a public address';
      throw new PlatformError('invalid_request', `url: ${why} (${rule})`).withDetail(`${err.reason}: ${err.message}`);
    }
  }

  /** The event types, each once; an unknown one is refused by name. */
  private checkEvents(events: string[]): string[] {
    const unknown = events.find((e) => !isWebhookEventType(e));
    if (unknown !== undefined) throw new PlatformError('invalid_request', `events: unknown event ${JSON.stringify(unknown)}; known events are ${WEBHOOK_EVENT_TYPES.join(', ')}`);
    if (events.length === 0) throw new PlatformError('invalid_request', 'events: name at least one event');
    return [...new Set(events)];
  }

  /**
   * A receiver is sent each event's record whole, so whoever points one at a
   * URL must be able to read those records: a token that may not list
   * students must not have every new student sent to it instead. Checked
   * whenever a subscription is made or changed, with the events it will have.
   */
  private requireEventScopes(events: readonly string[], writer: SubscriptionWriter): void {
    const needed = eventReadScopes(events);
    const missing = needed.filter((s) => !writer.scopes.has(s));
    if (missing.length === 0) return;
    const carried = [...new Set(events.filter(isWebhookEventType).filter((e) => missing.includes(eventArea(e).readScope)))];
    const required = [WEBHOOK_SCOPE, ...needed];
    const ctx = { store: this.deps.store, issuer: this.deps.config.issuer, now: this.deps.now() };
    throw insufficientScope(ctx, writer.resource, required, `The events ${carried.join(', ')} send records this token cannot read: subscribing to them needs the scopes ${required.join(' ')}`);
  }

  /** The checks create makes, without creating anything (a dry run): the events as they would be stored. */
  async check(input: SubscriptionInput, writer: SubscriptionWriter): Promise<string[]> {
    const events = this.checkEvents(input.events);
    this.requireEventScopes(events, writer);
    await this.checkUrl(input.url);
    return events;
  }

  /**
   * A school has at most WEBHOOK_MAX_SUBSCRIPTIONS: every event is fanned out
   * to its subscriptions inside the write that caused it, so their number is
   * a cost of every such write. Two creates racing at the limit may both pass.
   */
  private async checkRoom(): Promise<void> {
    const max = this.deps.config.webhooks.maxSubscriptions;
    if ((await this.deps.store.webhooks.count()) >= max) {
      throw new PlatformError('conflict', `The school already has ${max} webhook subscriptions, the most this server allows (WEBHOOK_MAX_SUBSCRIPTIONS); delete one first`);
    }
  }

  /** Creates a subscription; the answer holds the secret, which is never shown again. */
  async create(input: SubscriptionInput, writer: SubscriptionWriter): Promise<SubscriptionView & { secret: string }> {
    const events = await this.check(input, writer);
    await this.checkRoom();
    // Standard Webhooks: a secret of 24 to 64 random bytes, base64, prefixed whsec_.
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const now = this.deps.now();
    const subscription: WebhookSubscription = {
      id: `wh_${randomBytes(12).toString('base64url')}`,
      url: input.url,
      events,
      description: input.description ?? null,
      sealedSecret: await this.deps.keys.sealSecret(secret),
      enabled: true,
      disabledReason: null,
      failedDeliveries: 0,
      createdAt: now,
      updatedAt: now,
    };
    await this.deps.store.webhooks.create(subscription, await writeEntry(this.deps, 'record.created', OTHER_RECORDS.webhooks, subscription.id, Object.keys(input)));
    return { ...subscriptionView(subscription), secret };
  }

  async list(limit: number = PAGE_SIZE.records, cursor?: string): Promise<{ data: SubscriptionView[]; next_cursor?: string }> {
    const page = await this.deps.store.webhooks.list(clampPageSize(limit), cursor ? decodeCursor(cursor) : undefined);
    return { data: page.rows.map(subscriptionView), ...(page.next ? { next_cursor: encodeCursor(page.next) } : {}) };
  }

  private async find(id: string): Promise<WebhookSubscription> {
    const found = id.length <= 100 ? await this.deps.store.webhooks.find(id) : undefined;
    if (!found) throw notFound(id);
    return found;
  }

  async get(id: string): Promise<SubscriptionView> {
    return subscriptionView(await this.find(id));
  }

  async update(id: string, patch: SubscriptionPatch, writer: SubscriptionWriter): Promise<SubscriptionView> {
    const current = await this.find(id);
    const events = patch.events === undefined ? undefined : this.checkEvents(patch.events);
    // A new URL, or the subscription turned back on, sends its events on: the same check as new ones.
    this.requireEventScopes(events ?? current.events, writer);
    if (patch.url !== undefined) await this.checkUrl(patch.url);
    const entry = await writeEntry(this.deps, 'record.updated', OTHER_RECORDS.webhooks, id, Object.keys(patch));
    const updated = await this.deps.store.webhooks.update(id, { ...patch, ...(events ? { events } : {}) }, this.deps.now(), entry);
    if (!updated) throw notFound(id);
    return subscriptionView(updated);
  }

  /** Whether the subscription exists (a delete's dry run); not_found otherwise. */
  async exists(id: string): Promise<void> {
    await this.find(id);
  }

  async delete(id: string): Promise<void> {
    if (id.length > 100 || !(await this.deps.store.webhooks.delete(id, await writeEntry(this.deps, 'record.deleted', OTHER_RECORDS.webhooks, id)))) throw notFound(id);
  }

  async deliveries(id: string, limit: number = PAGE_SIZE.records, cursor?: string): Promise<{ data: DeliveryView[]; next_cursor?: string }> {
    await this.find(id);
    const page = await this.deps.store.webhooks.listDeliveries(id, clampPageSize(limit), cursor ? decodeCursor(cursor) : undefined);
    return { data: page.rows.map(deliveryView), ...(page.next ? { next_cursor: encodeCursor(page.next) } : {}) };
  }

  /** A new delivery of the same event (same webhook-id), due now; the old one's log stays as it was. */
  async redeliver(id: string, deliveryId: string): Promise<DeliveryView> {
    await this.find(id);
    const delivery = deliveryId.length <= 100 ? await this.deps.store.webhooks.redeliver(id, deliveryId, newDeliveryId(), this.deps.now()) : undefined;
    if (!delivery) throw new PlatformError('not_found', `No delivery with id ${deliveryId} of webhook ${id}`);
    return deliveryView(delivery);
  }
}
