import type { ActivityEntry } from './activity.ts';
/** An event for webhook receivers, written to the outbox with the change that caused it. */
export interface OutboxEvent {
  /** `msg_…`: the webhook-id header, the same for every attempt and receiver. */
  id: string;
  type: string;
  /** The JSON body receivers get, exactly as it is signed. */
  payload: string;
  createdAt: number;
}

export interface WebhookSubscription {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  /** The signing secret as a compact JWE (src/keys/keyring.ts); never stored in clear. */
  sealedSecret: string;
  enabled: boolean;
  disabledReason: string | null;
  /** Deliveries in a row that ran out of attempts; a success sets it back to 0. */
  failedDeliveries: number;
  createdAt: number;
  updatedAt: number;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface WebhookDelivery {
  id: string;
  eventId: string;
  eventType: string;
  subscriptionId: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: number | null;
  lastAttemptAt: number | null;
  lastStatusCode: number | null;
  lastDurationMs: number | null;
  lastError: string | null;
  createdAt: number;
}

/** A delivery a worker has claimed: what it needs to send it. */
export interface ClaimedDelivery {
  id: string;
  eventId: string;
  payload: string;
  /** This attempt's number, from 1. */
  attempt: number;
  subscription: Pick<WebhookSubscription, 'id' | 'url' | 'sealedSecret'>;
}

/** How an attempt ended: delivered, or failed and retried at `retryAt` (null: no attempts left). */
export type AttemptOutcome =
  { ok: true; statusCode: number; durationMs: number; at: number } | { ok: false; statusCode: number | null; durationMs: number; at: number; error: string; retryAt: number | null };

export interface WebhookStore {
  create(subscription: WebhookSubscription, activity?: ActivityEntry): Promise<void>;
  find(id: string): Promise<WebhookSubscription | undefined>;
  /** How many subscriptions there are, enabled or not. */
  count(): Promise<number>;
  /** Oldest first, after the (created_at, id) cursor. */
  list(limit: number, after?: [number, string]): Promise<{ rows: WebhookSubscription[]; next?: [number, string] }>;
  /** Contract: changes the named fields; enabling clears the reason and the failure count. Undefined for an unknown id. */
  update(id: string, patch: { url?: string; events?: string[]; description?: string | null; enabled?: boolean }, now: number, activity?: ActivityEntry): Promise<WebhookSubscription | undefined>;
  /** Contract: deletes the subscription with its deliveries; false if it did not exist. */
  delete(id: string, activity?: ActivityEntry): Promise<boolean>;
  /** A subscription's deliveries, newest first, after the (created_at, id) cursor. */
  listDeliveries(subscriptionId: string, limit: number, after?: [number, string]): Promise<{ rows: WebhookDelivery[]; next?: [number, string] }>;
  findDelivery(subscriptionId: string, id: string): Promise<WebhookDelivery | undefined>;
  /** A new pending delivery of the same event to the same subscription, due at `now`. */
  redeliver(subscriptionId: string, deliveryId: string, newId: string, now: number): Promise<WebhookDelivery | undefined>;
  /**
   * Contract: claims up to `limit` pending deliveries due at `now` to enabled
   * subscriptions whose lease is absent or over, leasing each until
   * `leaseUntil` and counting the attempt. While a lease holds no other
   * caller, in this process or another on the same database, claims the row.
   */
  claimDue(now: number, leaseUntil: number, limit: number): Promise<ClaimedDelivery[]>;
  /**
   * Records an attempt's outcome and releases the lease. A failure with no
   * retry left marks the delivery failed and counts it against its
   * subscription, which is disabled (with a reason) at `disableAfter` in a row.
   */
  finish(claim: ClaimedDelivery, outcome: AttemptOutcome, disableAfter: number): Promise<void>;
  /** Deletes finished (succeeded or failed) deliveries made before `before`, then events no delivery refers to any more; returns the deliveries deleted. */
  purgeFinished(before: number): Promise<number>;
}
