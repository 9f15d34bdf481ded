import { appendActivity, writing } from './activity.ts';
import type { Kysely, Selectable } from 'kysely';
import type { Grant, GrantStore } from '../types.ts';
import type { Database, GrantsTable } from './schema.ts';

const toGrant = (r: Selectable<GrantsTable>): Grant => ({
  userId: r.user_id,
  clientId: r.client_id,
  scope: r.scope,
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
  expiresAt: r.expires_at === null ? null : Number(r.expires_at),
});

export function kyselyGrantStore(db: Kysely<Database>): GrantStore {
  return {
    async upsert(g, activity) {
      await writing(db, activity, (trx) =>
        trx
          .insertInto('grants')
          .values({ user_id: g.userId, client_id: g.clientId, scope: g.scope, created_at: g.createdAt, updated_at: g.updatedAt, expires_at: g.expiresAt })
          .onConflict((oc) => oc.columns(['user_id', 'client_id']).doUpdateSet({ scope: g.scope, updated_at: g.updatedAt, expires_at: g.expiresAt }))
          .execute(),
      );
    },
    async find(userId, clientId) {
      const r = await db.selectFrom('grants').selectAll().where('user_id', '=', userId).where('client_id', '=', clientId).executeTakeFirst();
      return r && toGrant(r);
    },
    async setEnd(userId, clientId, expiresAt, now, activity) {
      return writing(
        db,
        activity,
        async (trx) =>
          Number((await trx.updateTable('grants').set({ expires_at: expiresAt, updated_at: now }).where('user_id', '=', userId).where('client_id', '=', clientId).executeTakeFirst()).numUpdatedRows) >
          0,
        (changed) => changed,
      );
    },
    async listForUser(userId) {
      const rows = await db.selectFrom('grants').selectAll().where('user_id', '=', userId).orderBy('updated_at', 'desc').execute();
      return rows.map(toGrant);
    },
    async delete(userId, clientId, activity) {
      return db.transaction().execute(async (trx) => {
        // A code dies with the consent it came from: deleted in the same transaction, a code is
        // either consumed before (its tokens then fall to revokeForGrant) or gone after, on every instance.
        await trx.deleteFrom('authorization_codes').where('user_id', '=', userId).where('client_id', '=', clientId).execute();
        // So does a device authorization the person approved and the device has not redeemed yet.
        await trx.deleteFrom('device_authorizations').where('client_id', '=', clientId).where('user_id', '=', userId).execute();
        const r = await trx.deleteFrom('grants').where('user_id', '=', userId).where('client_id', '=', clientId).executeTakeFirst();
        const deleted = Number(r.numDeletedRows) > 0;
        if (deleted && activity) await appendActivity(trx, activity);
        return deleted;
      });
    },
  };
}
