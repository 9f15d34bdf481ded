/**
 * Migration 007 on a database that already has clients: each gets the time
 * of its newest token or consent as its last use, so the purge of never-used
 * clients does not take a client in use for an unused one.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/kysely/open.ts';
import { databaseMigratedTo } from '../helpers/migrated-database.ts';
import { databaseConfig, STORE_KINDS } from '../helpers/stores.ts';

const BEFORE_007 = '005-public-listing-indexes';

/** The database as it was before migration 007, with one user, three clients and their tokens and consents. */
function databaseBefore007(kind: 'sqlite' | 'postgres'): Promise<string> {
  return databaseMigratedTo(kind, BEFORE_007, async (db) => {
    await sql`insert into users (id, email, name, role, password_hash, created_at, updated_at) values ('u1', 'u1@school.test', 'U', 'student', 'x', 1, 1)`.execute(db);
    for (const id of ['tokens-and-grant', 'grant-only', 'nothing']) {
      await sql`insert into clients (id, secret_hash, metadata, created_at) values (${id}, null, '{}', 10)`.execute(db);
    }
    for (const [hash, createdAt] of [
      ['h1', 100],
      ['h2', 200],
    ] as const) {
      await sql`insert into tokens (hash, kind, client_id, user_id, scope, resource, family_id, auth_time, expires_at, created_at, revoked_at, rotated_at, salt)
      values (${hash}, 'access', 'tokens-and-grant', 'u1', 's', null, 'f', 1, 9999999999999, ${createdAt}, null, null, null)`.execute(db);
    }
    await sql`insert into grants (user_id, client_id, scope, created_at, updated_at) values ('u1', 'tokens-and-grant', 's', 150, 150)`.execute(db);
    await sql`insert into grants (user_id, client_id, scope, created_at, updated_at) values ('u1', 'grant-only', 's', 300, 300)`.execute(db);
  });
}

describe.each(STORE_KINDS)('migration 007 backfills last use (%s)', (kind) => {
  it('gives each existing client its newest token or consent time, and null to a client with neither', async () => {
    const url = await databaseBefore007(kind);
    const store = openStore(databaseConfig(url));
    try {
      await store.migrate();
      const byId = Object.fromEntries((await store.clients.list()).map((c) => [c.id, c.lastUsedAt]));
      expect(byId).toEqual({ 'tokens-and-grant': 200, 'grant-only': 300, nothing: null });
    } finally {
      await store.close();
    }
  });
});
