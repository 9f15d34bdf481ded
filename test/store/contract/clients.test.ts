/**
 * The store contract of clients (src/store/repositories/), run against every
 * store kind: SQLite always, PostgreSQL when TEST_DATABASE_URL is set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/store/kysely/open.ts';
import type { Store } from '../../../src/store/types.ts';
import { databaseConfig, freshDatabaseUrl, STORE_KINDS } from '../../helpers/stores.ts';
import { PAST, T0, expectNumericTimes, hash, id, newClient, newCode, newToken, newUser, openContractStore } from '../../helpers/store-contract.ts';

describe.each(STORE_KINDS)('store contract: clients (%s)', (kind) => {
  let store: Store;
  beforeAll(async () => ({ store } = await openContractStore(kind)));
  afterAll(() => store?.close());

  describe('clients', () => {
    it('create → find round-trips metadata, secret hash and numeric createdAt', async () => {
      const c = newClient({
        secretHash: hash(),
        createdAt: T0 + 5,
        metadata: {
          client_name: 'Ünïcødé «client» 📚',
          redirect_uris: ['http://127.0.0.1/a', 'http://[::1]:9000/b?x=1'],
          grant_types: ['authorization_code'],
          response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_post',
          application_type: 'web',
          scope: 'openid courses:read',
          client_uri: 'https://example.test',
          contacts: ['ops@example.test'],
          software_id: 'sw',
          software_version: '1.0.0',
        },
      });
      await store.clients.create(c);
      const found = await store.clients.find(c.id);
      expect(found).toEqual(c);
      expectNumericTimes(found!, ['createdAt']);
    });

    it('find of an unknown id gives undefined', async () => {
      expect(await store.clients.find(id('lyc_client_'))).toBeUndefined();
    });

    it('createWithinCap creates while fewer than the cap exist, else false; racing calls from two stores never pass the cap', async () => {
      const other = await freshDatabaseUrl(kind);
      const stores = [openStore(databaseConfig(other)), openStore(databaseConfig(other))];
      try {
        await stores[0]!.migrate();
        const first = newClient();
        expect(await stores[0]!.clients.createWithinCap(first, 1)).toBe(true);
        expect(await stores[0]!.clients.find(first.id)).toEqual(first);
        const refused = newClient();
        expect(await stores[0]!.clients.createWithinCap(refused, 1)).toBe(false);
        // Clients known by a metadata document are not open registrations: they neither count nor are refused.
        await stores[0]!.clients.saveFromDocument('https://app.example/client.json', first.metadata, T0);
        expect(await stores[0]!.clients.createWithinCap(refused, 2)).toBe(true);
        await stores[0]!.clients.delete(refused.id);
        expect(await stores[0]!.clients.find(refused.id)).toBeUndefined();
        const results = await Promise.all(Array.from({ length: 12 }, (_, i) => stores[i % 2]!.clients.createWithinCap(newClient(), 4)));
        expect(results.filter(Boolean)).toHaveLength(3);
        expect((await stores[1]!.clients.list()).filter((c) => !c.id.startsWith('https://'))).toHaveLength(4);
      } finally {
        for (const st of stores) await st.close();
      }
    });

    it('createWithinCap counts only open-registration clients: the ones the school added do not fill the cap', async () => {
      const other = await freshDatabaseUrl(kind);
      const s = openStore(databaseConfig(other));
      try {
        await s.migrate();
        const school = newClient({ registration: 'operator' });
        await s.clients.create(school);
        expect(await s.clients.find(school.id)).toEqual(school);
        const first = newClient();
        expect(await s.clients.createWithinCap(first, 1)).toBe(true);
        expect(await s.clients.find(first.id)).toEqual(first);
        expect(await s.clients.createWithinCap(newClient(), 1)).toBe(false);
      } finally {
        await s.close();
      }
    });

    it('saveFromDocument creates a client known by its document, then replaces only its metadata; racing saves leave one row', async () => {
      const docId = `https://app.example/${id('client-')}.json`;
      const first = newClient().metadata;
      await store.clients.saveFromDocument(docId, first, T0 + 10);
      expect(await store.clients.find(docId)).toEqual({ id: docId, secretHash: null, metadata: first, createdAt: T0 + 10, lastUsedAt: null, registration: 'open' });
      await store.clients.markUsed(docId, T0 + 20);
      const second = { ...first, client_name: 'Renamed', redirect_uris: ['https://app.example/cb'] };
      await Promise.all([store.clients.saveFromDocument(docId, second, T0 + 30), store.clients.saveFromDocument(docId, second, T0 + 31)]);
      expect(await store.clients.find(docId)).toEqual({ id: docId, secretHash: null, metadata: second, createdAt: T0 + 10, lastUsedAt: T0 + 20, registration: 'open' });
      expect((await store.clients.list()).filter((c) => c.id === docId)).toHaveLength(1);
    });

    it('markUsed sets lastUsedAt, and moves it only once at least a minute has passed', async () => {
      const c = newClient();
      await store.clients.create(c);
      await store.clients.markUsed(c.id, T0 + 1_000);
      expect((await store.clients.find(c.id))?.lastUsedAt).toBe(T0 + 1_000);
      await store.clients.markUsed(c.id, T0 + 59_999);
      expect((await store.clients.find(c.id))?.lastUsedAt).toBe(T0 + 1_000);
      await store.clients.markUsed(c.id, T0 + 61_000);
      const found = await store.clients.find(c.id);
      expect(found?.lastUsedAt).toBe(T0 + 61_000);
      expectNumericTimes(found!, ['lastUsedAt']);
      await store.clients.markUsed(id('lyc_client_'), T0);
    });

    it('purgeNeverUsed deletes never-used open clients registered before the time, with their codes; keeps used, recent, token-holding and operator ones', async () => {
      const other = await freshDatabaseUrl(kind);
      const s = openStore(databaseConfig(other));
      try {
        await s.migrate();
        const u = newUser();
        await s.users.create(u);
        const idle = newClient({ createdAt: PAST });
        const used = newClient({ createdAt: PAST, lastUsedAt: PAST + 1 });
        const recent = newClient({ createdAt: PAST + 10_000 });
        const withToken = newClient({ createdAt: PAST });
        const schools = newClient({ createdAt: PAST, registration: 'operator' });
        for (const c of [idle, used, recent, withToken, schools]) await s.clients.create(c);
        const code = newCode(idle.id, u.id);
        await s.codes.save(code);
        await s.tokens.insert([newToken(withToken.id, u.id)]);
        expect(await s.clients.purgeNeverUsed(PAST + 5_000)).toBe(1);
        expect(await s.clients.find(idle.id)).toBeUndefined();
        expect(await s.codes.consume(code.hash, PAST)).toEqual({ status: 'unknown' });
        expect((await s.clients.list()).map((c) => c.id).sort()).toEqual([used.id, recent.id, withToken.id, schools.id].sort());
        expect(await s.clients.purgeNeverUsed(PAST + 5_000)).toBe(0);
      } finally {
        await s.close();
      }
    });

    it('list() returns clients oldest first', async () => {
      const base = T0 + 20_000_000;
      const b = newClient({ createdAt: base + 1 });
      const a = newClient({ createdAt: base });
      await store.clients.create(b);
      await store.clients.create(a);
      const all = await store.clients.list();
      expect(all.filter((c) => c.id === a.id || c.id === b.id).map((c) => c.id)).toEqual([a.id, b.id]);
      for (const c of all) expectNumericTimes(c, ['createdAt']);
      expect(all.find((c) => c.id === a.id)).toEqual(a);
    });

    it('delete removes the client with its codes, tokens and grants, and nothing of other clients', async () => {
      const u = newUser();
      await store.users.create(u);
      const doomed = newClient();
      const kept = newClient();
      await store.clients.create(doomed);
      await store.clients.create(kept);

      const doomedCode = newCode(doomed.id, u.id);
      const keptCode = newCode(kept.id, u.id);
      await store.codes.save(doomedCode);
      await store.codes.save(keptCode);
      const doomedTokens = [newToken(doomed.id, u.id, { kind: 'access' }), newToken(doomed.id, u.id)];
      const keptTokens = [newToken(kept.id, u.id, { kind: 'access' }), newToken(kept.id, u.id)];
      await store.tokens.insert([...doomedTokens, ...keptTokens]);
      await store.grants.upsert({ userId: u.id, clientId: doomed.id, scope: 'courses:read', createdAt: T0, updatedAt: T0, expiresAt: null });
      await store.grants.upsert({ userId: u.id, clientId: kept.id, scope: 'courses:read', createdAt: T0, updatedAt: T0, expiresAt: null });

      expect(await store.clients.delete(doomed.id)).toBe(true);

      expect(await store.clients.find(doomed.id)).toBeUndefined();
      expect(await store.codes.consume(doomedCode.hash, T0)).toEqual({ status: 'unknown' });
      for (const t of doomedTokens) expect(await store.tokens.find(t.hash)).toBeUndefined();
      expect(await store.grants.find(u.id, doomed.id)).toBeUndefined();
      expect((await store.grants.listForUser(u.id)).map((g) => g.clientId)).toEqual([kept.id]);

      expect(await store.clients.find(kept.id)).toEqual(kept);
      for (const t of keptTokens) expect(await store.tokens.find(t.hash)).toEqual(t);
      expect(await store.grants.find(u.id, kept.id)).toBeDefined();
      expect((await store.codes.consume(keptCode.hash, T0)).status).toBe('consumed');
      expect(await store.users.findById(u.id)).toEqual(u);
    });

    it('delete returns false for an unknown client, and for one already deleted', async () => {
      expect(await store.clients.delete(id('lyc_client_'))).toBe(false);
      const c = newClient();
      await store.clients.create(c);
      expect(await store.clients.delete(c.id)).toBe(true);
      expect(await store.clients.delete(c.id)).toBe(false);
    });
  });
});
