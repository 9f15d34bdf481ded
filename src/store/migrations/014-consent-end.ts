import type { Kysely } from 'kysely';

/**
 * When a person's consent to an app ends (`expires_at`, epoch ms; null:
 * until they disconnect it). After it, refresh is refused and the app must
 * ask again. Grants given before this migration last until disconnected,
 * as they always did.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('grants').addColumn('expires_at', 'bigint').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('grants').dropColumn('expires_at').execute();
}
