import type { Kysely } from 'kysely';

/**
 * How each client came to be: `open` (RFC 7591 registration at the endpoint,
 * loopback redirect URIs only, purged when never used) or `operator` (added
 * by the school with `lyceum clients add`, which may name https and
 * private-use-scheme redirect URIs and is never purged). Every client
 * registered before this migration came through the endpoint: `open`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('clients')
    .addColumn('registration', 'text', (c) => c.notNull().defaultTo('open'))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('clients').dropColumn('registration').execute();
}
