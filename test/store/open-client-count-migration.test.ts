/**
 * Migration 018 on a database that already has clients: the count of open
 * registrations starts at the clients it counts (not those the school added,
 * nor those known by a metadata document), and from then on every way a
 * client comes or goes keeps it exact, so the cap holds where it did.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/kysely/open.ts';
import type { Store } from '../../src/store/types.ts';
import { newClient } from '../helpers/store-contract.ts';
import { CLIENT_METADATA_COLUMN, databaseMigratedTo } from '../helpers/migrated-database.ts';
import { databaseConfig, STORE_KINDS } from '../helpers/stores.ts';

const BEFORE_018 = '017-password-checks-in-flight';
/** The database as it was before migration 018: two open clients, one of the school's, one known by its document. */
function databaseBefore018(kind: 'sqlite' | 'postgres'): Promise<string> {
  return databaseMigratedTo(kind, BEFORE_018, async (db) => {
    for (const [id, registration] of [
      ['open-1', 'open'],
      ['open-2', 'open'],
      ['school', 'operator'],
      ['https://app.example/client.json', 'open'],
    ]) {
      await sql`insert into clients (id, secret_hash, metadata, created_at, last_used_at, registration) values (${id}, null, ${CLIENT_METADATA_COLUMN}, 10, null, ${registration})`.execute(db);
    }
  });
}

/** How many more open registrations a cap of `cap` lets in now (each one tried is then deleted again). */
async function room(store: Store, cap: number): Promise<number> {
  const made = [];
  for (let c = newClient(); await store.clients.createWithinCap(c, cap); c = newClient()) made.push(c.id);
  for (const id of made) await store.clients.delete(id);
  return made.length;
}

describe.each(STORE_KINDS)('migration 018 keeps the count of open registrations (%s)', (kind) => {
  it('starts from the open clients stored before it and follows registration, deletion and the purge', async () => {
    const url = await databaseBefore018(kind);
    const store = openStore(databaseConfig(url));
    try {
      await store.migrate();
      expect(await room(store, 5)).toBe(3);
      await store.clients.delete('open-1');
      expect(await room(store, 5)).toBe(4);
      await store.clients.create(newClient({ registration: 'operator' }));
      await store.clients.saveFromDocument('https://other.example/client.json', JSON.parse(CLIENT_METADATA_COLUMN), 10);
      expect(await room(store, 5)).toBe(4);
      await store.clients.create(newClient({ createdAt: 5 }));
      expect(await room(store, 5)).toBe(3);
      // The purge removes the never-used open clients (two, and the two known by their documents), never the school’s.
      expect(await store.clients.purgeNeverUsed(1_000)).toBe(4);
      expect(await room(store, 5)).toBe(5);
      expect((await store.clients.list()).map((c) => c.registration).sort()).toEqual(['operator', 'operator']);
    } finally {
      await store.close();
    }
  });
});
