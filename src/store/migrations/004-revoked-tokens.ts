import type { Kysely } from 'kysely';

/**
 * Revoked tokens, for the background purge: it deletes tokens revoked over a
 * day ago, expired or not. Without this index it walked the whole table by
 * primary key on every run. Partial, so it holds only the revoked rows and
 * costs nothing when a token is issued or rotated.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('tokens_revoked_at').on('tokens').column('revoked_at').where('revoked_at', 'is not', null).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('tokens_revoked_at').execute();
}
