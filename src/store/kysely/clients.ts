import type { Kysely, Selectable } from 'kysely';
import type { Client, ClientMetadata, ClientStore } from '../types.ts';
import { compiledInsert, compiledLookup } from './compiled-shapes.ts';
import type { ClientsTable, Database } from './schema.ts';
import { whenReady } from '../../util/maybe-promise.ts';

function toClient(row: Selectable<ClientsTable>): Client {
  return {
    id: row.id,
    secretHash: row.secret_hash,
    metadata: JSON.parse(row.metadata) as ClientMetadata,
    createdAt: Number(row.created_at),
  };
}

export function kyselyClientStore(db: Kysely<Database>): ClientStore {
  const findById = compiledLookup(db, (value) => db.selectFrom('clients').selectAll().where('id', '=', value(0) as string));
  const insert = compiledInsert(db, 'clients');
  return {
    async create(client) {
      await insert(db, [{ id: client.id, secret_hash: client.secretHash, metadata: JSON.stringify(client.metadata), created_at: client.createdAt }]);
    },
    find: (id) => whenReady(findById(id), (row) => row && toClient(row)),
    async list() {
      const rows = await db.selectFrom('clients').selectAll().orderBy('created_at').orderBy('id').execute();
      return rows.map(toClient);
    },
    async delete(id) {
      return db.transaction().execute(async (trx) => {
        // Explicit, so the contract holds even where foreign keys are not enforced.
        await trx.deleteFrom('tokens').where('client_id', '=', id).execute();
        await trx.deleteFrom('authorization_codes').where('client_id', '=', id).execute();
        await trx.deleteFrom('grants').where('client_id', '=', id).execute();
        const r = await trx.deleteFrom('clients').where('id', '=', id).executeTakeFirst();
        return Number(r.numDeletedRows) > 0;
      });
    },
  };
}
