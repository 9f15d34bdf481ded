import { sql, type Kysely } from 'kysely';

/**
 * When each client last obtained a token (`last_used_at`, epoch ms; null:
 * never), for `lyceum clients list` and for the background purge, which
 * deletes clients that never obtained one once they are idle long enough.
 * Clients registered before this migration get the time of their newest
 * token or consent, so that a client in use is not taken for an unused one.
 * The partial index holds only the never-used clients the purge looks for.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('clients').addColumn('last_used_at', 'bigint').execute();
  await sql`
    update clients set last_used_at = (
      select max(t) from (
        select max(created_at) as t from tokens where tokens.client_id = clients.id
        union all
        select max(updated_at) as t from grants where grants.client_id = clients.id
      ) as used
    )`.execute(db);
  await db.schema.createIndex('clients_never_used').on('clients').column('created_at').where(sql.ref('last_used_at'), 'is', null).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('clients_never_used').execute();
  await db.schema.alterTable('clients').dropColumn('last_used_at').execute();
}
