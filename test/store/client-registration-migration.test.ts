/**
 * Migration 008 on a database that already has clients: every one of them
 * came through open registration, so each becomes `open` (and stays subject
 * to the purge of never-used clients), while clients added afterwards keep
 * the kind they are created with.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/kysely/open.ts';
import { CLIENT_METADATA_COLUMN, databaseMigratedTo } from '../helpers/migrated-database.ts';
import { databaseConfig, STORE_KINDS } from '../helpers/stores.ts';

const BEFORE_008 = '007-client-last-used';

/** The database as it was before migration 008, with two clients. */
function databaseBefore008(kind: 'sqlite' | 'postgres'): Promise<string> {
  return databaseMigratedTo(kind, BEFORE_008, async (db) => {
    for (const id of ['used', 'never-used']) {
      await sql`insert into clients (id, secret_hash, metadata, created_at, last_used_at) values (${id}, null, ${CLIENT_METADATA_COLUMN}, 10, ${id === 'used' ? 20 : null})`.execute(db);
    }
  });
}

describe.each(STORE_KINDS)('migration 008 records who registered each client (%s)', (kind) => {
  it('makes every existing client an open-registration one, still purged when never used; new clients keep their kind', async () => {
    const url = await databaseBefore008(kind);
    const store = openStore(databaseConfig(url));
    try {
      await store.migrate();
      expect(Object.fromEntries((await store.clients.list()).map((c) => [c.id, c.registration]))).toEqual({ used: 'open', 'never-used': 'open' });
      await store.clients.create({ id: 'school', secretHash: null, metadata: JSON.parse(CLIENT_METADATA_COLUMN), createdAt: 10, registration: 'operator' });
      expect(await store.clients.purgeNeverUsed(1_000)).toBe(1);
      expect(Object.fromEntries((await store.clients.list()).map((c) => [c.id, c.registration]))).toEqual({ used: 'open', school: 'operator' });
    } finally {
      await store.close();
    }
  });
});
