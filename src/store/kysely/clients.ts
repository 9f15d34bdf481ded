import { sql, type Kysely, type Selectable } from 'kysely';
import type { Client, ClientMetadata, ClientStore } from '../types.ts';
import { LAST_USED_RESOLUTION_MS } from '../repositories/clients.ts';
import { inBatches } from './purge.ts';
import type { ClientsTable, Database } from './schema.ts';
import type { KeyLookup } from './key-lookup.ts';

function toClient(row: Selectable<ClientsTable>): Client {
  return {
    id: row.id,
    secretHash: row.secret_hash,
    metadata: JSON.parse(row.metadata) as ClientMetadata,
    createdAt: Number(row.created_at),
    lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
    registration: row.registration,
  };
}

/** Registered clients. createWithinCap checks the count of open registrations that triggers keep (migration 018). */
/** The row of a client as the table stores it. */
const clientRow = (client: Client) => ({
  id: client.id,
  secret_hash: client.secretHash,
  metadata: JSON.stringify(client.metadata),
  created_at: client.createdAt,
  last_used_at: client.lastUsedAt ?? null,
  registration: client.registration ?? 'open',
});

export function kyselyClientStore(db: Kysely<Database>, lookups: KeyLookup, kind: 'sqlite' | 'postgres', maintenance: Kysely<Database> = db): ClientStore {
  const findById = lookups((id: string) => db.selectFrom('clients').selectAll().where('id', '=', id));
  return {
    async create(client) {
      await db.insertInto('clients').values(clientRow(client)).execute();
    },
    async createWithinCap(client, maxClients) {
      // The cap is open registration's: the clients the school added, and those known by a
      // metadata document (their id is its https URL), do not count; triggers keep the count
      // (migration 018), so the check reads one row whatever the number of clients.
      const values = clientRow(client);
      // One statement, so the count is held only while the database runs it, never across a
      // round trip: SQLite's write lock covers it whole; on PostgreSQL the count's row lock queues
      // racing registrations on every instance, and one that waited reads the count its
      // predecessor's insert left (a locked row is read again once its holder commits).
      const insert = sql`
        insert into clients (${sql.join(Object.keys(values).map((c) => sql.ref(c)))})
        select ${sql.join(Object.values(values))}
        where (select value from counters where name = 'open_clients'${kind === 'postgres' ? sql` for update` : sql``}) < ${maxClients}`;
      return Number((await insert.execute(db)).numAffectedRows ?? 0) > 0;
    },
    async saveFromDocument(id, metadata, now) {
      const json = JSON.stringify(metadata);
      await db
        .insertInto('clients')
        .values({ id, secret_hash: null, metadata: json, created_at: now, last_used_at: null, registration: 'open' })
        .onConflict((oc) => oc.column('id').doUpdateSet({ metadata: json }))
        .execute();
    },
    async find(id) {
      const row = await findById(id);
      return row && toClient(row);
    },
    async list() {
      const rows = await db.selectFrom('clients').selectAll().orderBy('created_at').orderBy('id').execute();
      return rows.map(toClient);
    },
    async markUsed(id, now) {
      await db
        .updateTable('clients')
        .set({ last_used_at: now })
        .where('id', '=', id)
        .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', now - LAST_USED_RESOLUTION_MS)]))
        .execute();
    },
    async purgeNeverUsed(registeredBefore) {
      // One statement per batch, as the maintenance connection runs them; the clients' codes go
      // with them by the foreign keys' ON DELETE CASCADE (enforced on both stores).
      return inBatches(async (limit) => {
        const r = await maintenance
          .deleteFrom('clients')
          .where('id', 'in', (eb) =>
            eb
              .selectFrom('clients as c')
              .select('c.id')
              .where('c.last_used_at', 'is', null)
              // The school's own clients stay until it deletes them.
              .where('c.registration', '=', 'open')
              .where('c.created_at', '<', registeredBefore)
              // A token issued a moment ago may not have marked its client yet: a client with a token stays.
              .where((w) => w.not(w.exists(w.selectFrom('tokens').select('tokens.hash').whereRef('tokens.client_id', '=', 'c.id'))))
              .limit(limit),
          )
          .executeTakeFirst();
        return Number(r.numDeletedRows);
      });
    },
    async delete(id) {
      return db.transaction().execute(async (trx) => {
        // Explicit, so the contract holds even where foreign keys are not enforced.
        await trx.deleteFrom('tokens').where('client_id', '=', id).execute();
        await trx.deleteFrom('authorization_codes').where('client_id', '=', id).execute();
        await trx.deleteFrom('device_authorizations').where('client_id', '=', id).execute();
        await trx.deleteFrom('grants').where('client_id', '=', id).execute();
        const r = await trx.deleteFrom('clients').where('id', '=', id).executeTakeFirst();
        return Number(r.numDeletedRows) > 0;
      });
    },
  };
}
