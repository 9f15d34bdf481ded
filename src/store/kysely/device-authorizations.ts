import type { Kysely, Selectable } from 'kysely';
import type { DeviceAuthorization, DeviceAuthorizationStatus, DeviceAuthorizationStore } from '../types.ts';
import type { Database, DeviceAuthorizationsTable } from './schema.ts';
import { purgeBefore } from './purge.ts';
import { insertTokens } from './tokens.ts';
import { isUniqueViolation } from './unique-violation.ts';

const toAuthorization = (r: Selectable<DeviceAuthorizationsTable>): DeviceAuthorization => ({
  hash: r.hash,
  userCodeHash: r.user_code_hash,
  clientId: r.client_id,
  scope: r.scope,
  resource: r.resource,
  status: r.status as DeviceAuthorizationStatus,
  userId: r.user_id,
  authTime: r.auth_time === null ? null : Number(r.auth_time),
  familyId: r.family_id,
  interval: Number(r.poll_interval),
  lastPolledAt: r.last_polled_at === null ? null : Number(r.last_polled_at),
  expiresAt: Number(r.expires_at),
  createdAt: Number(r.created_at),
});

export function kyselyDeviceAuthorizationStore(db: Kysely<Database>, maintenance: Kysely<Database> = db): DeviceAuthorizationStore {
  return {
    async create(a) {
      try {
        await db
          .insertInto('device_authorizations')
          .values({
            hash: a.hash,
            user_code_hash: a.userCodeHash,
            client_id: a.clientId,
            scope: a.scope,
            resource: a.resource,
            status: a.status,
            user_id: a.userId,
            auth_time: a.authTime,
            family_id: a.familyId,
            poll_interval: a.interval,
            last_polled_at: a.lastPolledAt,
            expires_at: a.expiresAt,
            created_at: a.createdAt,
          })
          .execute();
        return true;
      } catch (err) {
        if (isUniqueViolation(err)) return false;
        throw err;
      }
    },
    async findByUserCode(userCodeHash) {
      const r = await db.selectFrom('device_authorizations').selectAll().where('user_code_hash', '=', userCodeHash).executeTakeFirst();
      return r && toAuthorization(r);
    },
    async find(hash) {
      const r = await db.selectFrom('device_authorizations').selectAll().where('hash', '=', hash).executeTakeFirst();
      return r && toAuthorization(r);
    },
    async decide(hash, decision, now) {
      // One conditional UPDATE: the database lets exactly one decision through.
      const r = await db
        .updateTable('device_authorizations')
        .set(decision.status === 'approved' ? { status: 'approved', user_id: decision.userId, scope: decision.scope, auth_time: decision.authTime } : { status: 'denied', user_id: decision.userId })
        .where('hash', '=', hash)
        .where('status', '=', 'pending')
        .where('expires_at', '>', now)
        .returningAll()
        .executeTakeFirst();
      return r && toAuthorization(r);
    },
    async poll(hash, now, step) {
      return db.transaction().execute(async (trx) => {
        // Touching the row locks it until commit (PostgreSQL's row lock; SQLite's single writer):
        // polls of one device code, from any instance, queue here and each sees the one before.
        const r = await trx
          .updateTable('device_authorizations')
          .set((eb) => ({ hash: eb.ref('hash') }))
          .where('hash', '=', hash)
          .returningAll()
          .executeTakeFirst();
        if (!r) return undefined;
        const seen = toAuthorization(r);
        const outcome = step(seen);
        if (outcome.kind === 'wait') {
          await trx.updateTable('device_authorizations').set({ poll_interval: outcome.interval, last_polled_at: now }).where('hash', '=', hash).execute();
        } else if (outcome.kind === 'redeem') {
          await trx.updateTable('device_authorizations').set({ status: 'redeemed', last_polled_at: now }).where('hash', '=', hash).execute();
          await insertTokens(trx, outcome.tokens);
        }
        return seen;
      });
    },
    async purgeExpired(before) {
      return purgeBefore(maintenance, 'device_authorizations', 'expires_at', before);
    },
  };
}
