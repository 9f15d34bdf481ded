import { randomBytes } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { OutboxEvent } from '../types.ts';
import type { Database } from './schema.ts';

/**
 * Delivery rows in one INSERT: 13 bound values each, so 1,000 rows stay far
 * below SQLite's 32,766 variables and PostgreSQL's 65,535 parameters.
 */
const DELIVERY_ROWS_PER_INSERT = 1000;

/** A delivery's id: `whd_` and 12 random bytes. */
export const newDeliveryId = (): string => `whd_${randomBytes(12).toString('base64url')}`;

/**
 * Writes `events` to the webhook outbox on `trx`, the open transaction of the
 * change that caused them: they are committed with it or not at all, so an
 * event is never lost to a crash between the change and its delivery, nor
 * sent for a change that was rolled back.
 *
 * Each event gets one pending delivery, due at once, per enabled subscription
 * that asked for its type (fan-out here, not when delivering: a subscription
 * made later does not receive what happened before it). An event no
 * subscription wants is not stored.
 *
 * Any store function that writes a change in a transaction of its own emits
 * its events by calling this with that transaction.
 */
export async function appendEvents(trx: Transaction<Database> | Kysely<Database>, events: readonly OutboxEvent[]): Promise<void> {
  if (events.length === 0) return;
  const subscriptions = await trx.selectFrom('webhook_subscriptions').select(['id', 'events']).where('enabled', '=', 1).execute();
  if (subscriptions.length === 0) return;
  const wanted = subscriptions.map((s) => ({ id: s.id, types: new Set(JSON.parse(s.events) as string[]) }));
  for (const event of events) {
    const receivers = wanted.filter((s) => s.types.has(event.type));
    if (receivers.length === 0) continue;
    await trx.insertInto('webhook_events').values({ id: event.id, type: event.type, payload: event.payload, created_at: event.createdAt }).execute();
    for (let i = 0; i < receivers.length; i += DELIVERY_ROWS_PER_INSERT) {
      await trx
        .insertInto('webhook_deliveries')
        .values(
          receivers.slice(i, i + DELIVERY_ROWS_PER_INSERT).map((s) => ({
            id: newDeliveryId(),
            event_id: event.id,
            subscription_id: s.id,
            status: 'pending',
            attempts: 0,
            next_attempt_at: event.createdAt,
            lease_until: null,
            last_attempt_at: null,
            last_status_code: null,
            last_duration_ms: null,
            last_error: null,
            created_at: event.createdAt,
            updated_at: event.createdAt,
          })),
        )
        .execute();
    }
  }
}
