import { appendActivity, writing } from './activity.ts';
import type { Kysely, Selectable } from 'kysely';
import type { AttemptOutcome, ClaimedDelivery, DeliveryStatus, WebhookDelivery, WebhookStore, WebhookSubscription } from '../types.ts';
import { inBatches } from './purge.ts';
import type { Database, WebhookDeliveriesTable, WebhookSubscriptionsTable } from './schema.ts';

const num = (v: unknown) => Number(v);
const numOrNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));

function toSubscription(r: Selectable<WebhookSubscriptionsTable>): WebhookSubscription {
  return {
    id: r.id,
    url: r.url,
    events: JSON.parse(r.events) as string[],
    description: r.description,
    sealedSecret: r.sealed_secret,
    enabled: num(r.enabled) === 1,
    disabledReason: r.disabled_reason,
    failedDeliveries: num(r.failed_deliveries),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

function toDelivery(r: Selectable<WebhookDeliveriesTable> & { type: string }): WebhookDelivery {
  return {
    id: r.id,
    eventId: r.event_id,
    eventType: r.type,
    subscriptionId: r.subscription_id,
    status: r.status as DeliveryStatus,
    attempts: num(r.attempts),
    nextAttemptAt: numOrNull(r.next_attempt_at),
    lastAttemptAt: numOrNull(r.last_attempt_at),
    lastStatusCode: numOrNull(r.last_status_code),
    lastDurationMs: numOrNull(r.last_duration_ms),
    lastError: r.last_error,
    createdAt: num(r.created_at),
  };
}

/** Keyset paging: one row beyond the limit tells whether more follow. */
function pageOf<T extends { id: string; createdAt: number }>(rows: T[], limit: number): { rows: T[]; next?: [number, string] } {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { rows: page, ...(rows.length > limit && last ? { next: [last.createdAt, last.id] as [number, string] } : {}) };
}

export function kyselyWebhookStore(db: Kysely<Database>, kind: 'sqlite' | 'postgres', maintenance: Kysely<Database> = db): WebhookStore {
  const deliveries = () =>
    db.selectFrom('webhook_deliveries').innerJoin('webhook_events', 'webhook_events.id', 'webhook_deliveries.event_id').selectAll('webhook_deliveries').select('webhook_events.type');

  /** Pending, due, unleased, to an enabled subscription: what a worker may take. */
  const due = (q: Kysely<Database>, now: number, limit: number) =>
    q
      .selectFrom('webhook_deliveries')
      .innerJoin('webhook_subscriptions', 'webhook_subscriptions.id', 'webhook_deliveries.subscription_id')
      .select('webhook_deliveries.id')
      .where('webhook_deliveries.status', '=', 'pending')
      .where('webhook_deliveries.next_attempt_at', '<=', now)
      .where((eb) => eb.or([eb('webhook_deliveries.lease_until', 'is', null), eb('webhook_deliveries.lease_until', '<=', now)]))
      .where('webhook_subscriptions.enabled', '=', 1)
      .orderBy('webhook_deliveries.next_attempt_at')
      .limit(limit);

  return {
    async create(s, activity) {
      await writing(db, activity, (trx) =>
        trx
          .insertInto('webhook_subscriptions')
          .values({
            id: s.id,
            url: s.url,
            events: JSON.stringify(s.events),
            description: s.description,
            sealed_secret: s.sealedSecret,
            enabled: s.enabled ? 1 : 0,
            disabled_reason: s.disabledReason,
            failed_deliveries: s.failedDeliveries,
            created_at: s.createdAt,
            updated_at: s.updatedAt,
          })
          .execute(),
      );
    },
    async find(id) {
      const r = await db.selectFrom('webhook_subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
      return r ? toSubscription(r) : undefined;
    },
    async count() {
      const r = await db
        .selectFrom('webhook_subscriptions')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },
    async list(limit, after) {
      let q = db
        .selectFrom('webhook_subscriptions')
        .selectAll()
        .orderBy('created_at')
        .orderBy('id')
        .limit(limit + 1);
      if (after) q = q.where((eb) => eb.or([eb('created_at', '>', after[0]), eb.and([eb('created_at', '=', after[0]), eb('id', '>', after[1])])]));
      return pageOf((await q.execute()).map(toSubscription), limit);
    },
    async update(id, patch, now, activity) {
      const set: Partial<WebhookSubscriptionsTable> = { updated_at: now };
      if (patch.url !== undefined) set.url = patch.url;
      if (patch.events !== undefined) set.events = JSON.stringify(patch.events);
      if (patch.description !== undefined) set.description = patch.description;
      if (patch.enabled === true) Object.assign(set, { enabled: 1, disabled_reason: null, failed_deliveries: 0 });
      if (patch.enabled === false) Object.assign(set, { enabled: 0, disabled_reason: 'disabled through the API' });
      const updated = await writing(
        db,
        activity,
        async (trx) => Number((await trx.updateTable('webhook_subscriptions').set(set).where('id', '=', id).executeTakeFirst()).numUpdatedRows) > 0,
        (changed) => changed,
      );
      if (!updated) return undefined;
      return this.find(id);
    },
    async delete(id, activity) {
      return db.transaction().execute(async (trx) => {
        await trx.deleteFrom('webhook_deliveries').where('subscription_id', '=', id).execute();
        const r = await trx.deleteFrom('webhook_subscriptions').where('id', '=', id).executeTakeFirst();
        // Events no delivery refers to any more are of no use.
        await trx
          .deleteFrom('webhook_events')
          .where((eb) => eb.not(eb.exists(eb.selectFrom('webhook_deliveries').select('id').whereRef('webhook_deliveries.event_id', '=', 'webhook_events.id'))))
          .execute();
        const deleted = Number(r.numDeletedRows) > 0;
        if (deleted && activity) await appendActivity(trx, activity);
        return deleted;
      });
    },
    async listDeliveries(subscriptionId, limit, after) {
      let q = deliveries()
        .where('webhook_deliveries.subscription_id', '=', subscriptionId)
        .orderBy('webhook_deliveries.created_at', 'desc')
        .orderBy('webhook_deliveries.id', 'desc')
        .limit(limit + 1);
      if (after) {
        q = q.where((eb) => eb.or([eb('webhook_deliveries.created_at', '<', after[0]), eb.and([eb('webhook_deliveries.created_at', '=', after[0]), eb('webhook_deliveries.id', '<', after[1])])]));
      }
      return pageOf((await q.execute()).map(toDelivery), limit);
    },
    async findDelivery(subscriptionId, id) {
      const r = await deliveries().where('webhook_deliveries.subscription_id', '=', subscriptionId).where('webhook_deliveries.id', '=', id).executeTakeFirst();
      return r ? toDelivery(r) : undefined;
    },
    async redeliver(subscriptionId, deliveryId, newId, now) {
      const old = await this.findDelivery(subscriptionId, deliveryId);
      if (!old) return undefined;
      await db
        .insertInto('webhook_deliveries')
        .values({
          id: newId,
          event_id: old.eventId,
          subscription_id: subscriptionId,
          status: 'pending',
          attempts: 0,
          next_attempt_at: now,
          lease_until: null,
          last_attempt_at: null,
          last_status_code: null,
          last_duration_ms: null,
          last_error: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
      return this.findDelivery(subscriptionId, newId);
    },
    async claimDue(now, leaseUntil, limit) {
      // A read first: an idle poll writes nothing (on SQLite a transaction takes the write lock at BEGIN).
      if (!(await due(db, now, 1).executeTakeFirst())) return [];
      const ids = await db.transaction().execute(async (trx) => {
        // PostgreSQL: rows another instance is claiming right now are locked; skip them rather than
        // wait. The UPDATE's own conditions are checked again on the locked rows, so a row whose
        // lease another instance took meanwhile is not taken twice. SQLite: one writer at a time.
        const query = due(trx, now, limit);
        const candidates = await (kind === 'postgres' ? query.forUpdate(['webhook_deliveries']).skipLocked() : query).execute();
        if (candidates.length === 0) return [];
        const claimed = await trx
          .updateTable('webhook_deliveries')
          .set((eb) => ({ lease_until: leaseUntil, attempts: eb('attempts', '+', 1), updated_at: now }))
          .where(
            'id',
            'in',
            candidates.map((c) => c.id),
          )
          .where('status', '=', 'pending')
          .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)]))
          .returning(['id', 'attempts'])
          .execute();
        return claimed;
      });
      if (ids.length === 0) return [];
      const rows = await db
        .selectFrom('webhook_deliveries')
        .innerJoin('webhook_events', 'webhook_events.id', 'webhook_deliveries.event_id')
        .innerJoin('webhook_subscriptions', 'webhook_subscriptions.id', 'webhook_deliveries.subscription_id')
        .select([
          'webhook_deliveries.id as id',
          'webhook_events.id as event_id',
          'webhook_events.payload',
          'webhook_subscriptions.id as subscription_id',
          'webhook_subscriptions.url',
          'webhook_subscriptions.sealed_secret',
        ])
        .where(
          'webhook_deliveries.id',
          'in',
          ids.map((r) => r.id),
        )
        .execute();
      const attempts = new Map(ids.map((r) => [r.id, num(r.attempts)]));
      return rows.map((r): ClaimedDelivery => ({
        id: r.id,
        eventId: r.event_id,
        payload: r.payload,
        attempt: attempts.get(r.id) ?? 1,
        subscription: { id: r.subscription_id, url: r.url, sealedSecret: r.sealed_secret },
      }));
    },
    async purgeFinished(before) {
      const deliveries = await inBatches(async (limit) => {
        const r = await maintenance
          .deleteFrom('webhook_deliveries')
          .where('id', 'in', maintenance.selectFrom('webhook_deliveries').select('id').where('status', '<>', 'pending').where('created_at', '<', before).limit(limit))
          .executeTakeFirst();
        return Number(r.numDeletedRows);
      });
      await inBatches(async (limit) => {
        const r = await maintenance
          .deleteFrom('webhook_events')
          .where(
            'id',
            'in',
            maintenance
              .selectFrom('webhook_events')
              .select('id')
              .where('created_at', '<', before)
              .where((eb) => eb.not(eb.exists(eb.selectFrom('webhook_deliveries').select('webhook_deliveries.id').whereRef('webhook_deliveries.event_id', '=', 'webhook_events.id'))))
              .limit(limit),
          )
          .executeTakeFirst();
        return Number(r.numDeletedRows);
      });
      return deliveries;
    },
    async finish(claim, outcome: AttemptOutcome, disableAfter) {
      const last = { last_attempt_at: outcome.at, last_status_code: outcome.statusCode, last_duration_ms: outcome.durationMs, lease_until: null, updated_at: outcome.at };
      await db.transaction().execute(async (trx) => {
        if (outcome.ok) {
          await trx
            .updateTable('webhook_deliveries')
            .set({ ...last, status: 'succeeded', next_attempt_at: null, last_error: null })
            .where('id', '=', claim.id)
            .execute();
          await trx.updateTable('webhook_subscriptions').set({ failed_deliveries: 0 }).where('id', '=', claim.subscription.id).where('failed_deliveries', '>', 0).execute();
          return;
        }
        const gaveUp = outcome.retryAt === null;
        await trx
          .updateTable('webhook_deliveries')
          .set({ ...last, status: gaveUp ? 'failed' : 'pending', next_attempt_at: outcome.retryAt, last_error: outcome.error })
          .where('id', '=', claim.id)
          .execute();
        if (!gaveUp) return;
        const sub = await trx
          .updateTable('webhook_subscriptions')
          .set((eb) => ({ failed_deliveries: eb('failed_deliveries', '+', 1) }))
          .where('id', '=', claim.subscription.id)
          .returning('failed_deliveries')
          .executeTakeFirst();
        if (sub && num(sub.failed_deliveries) >= disableAfter) {
          await trx
            .updateTable('webhook_subscriptions')
            .set({ enabled: 0, disabled_reason: `${num(sub.failed_deliveries)} deliveries in a row failed after every retry`, updated_at: outcome.at })
            .where('id', '=', claim.subscription.id)
            .where('enabled', '=', 1)
            .execute();
        }
      });
    },
  };
}
