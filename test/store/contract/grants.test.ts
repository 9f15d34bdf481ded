/**
 * The store contract of grants (src/store/repositories/), run against every
 * store kind: SQLite always, PostgreSQL when TEST_DATABASE_URL is set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, Grant, Store, User } from '../../../src/store/types.ts';
import { STORE_KINDS } from '../../helpers/stores.ts';
import { T0, expectNumericTimes, id, newClient, newCode, newUser, openContractStore } from '../../helpers/store-contract.ts';

describe.each(STORE_KINDS)('store contract: grants (%s)', (kind) => {
  let store: Store, user: User, client: Client;
  beforeAll(async () => ({ store, user, client } = await openContractStore(kind)));
  afterAll(() => store?.close());

  describe('grants', () => {
    it('upsert creates, a second upsert replaces the scope and updatedAt; find returns numeric times', async () => {
      const c = newClient();
      await store.clients.create(c);
      const g: Grant = { userId: user.id, clientId: c.id, scope: 'courses:read', createdAt: T0, updatedAt: T0, expiresAt: null };
      await store.grants.upsert(g);
      const created = await store.grants.find(user.id, c.id);
      expect(created).toEqual(g);
      expectNumericTimes(created!, ['createdAt', 'updatedAt']);
      await store.grants.upsert({ ...g, scope: 'openid courses:write', updatedAt: T0 + 10, expiresAt: T0 + 3600_000 });
      const replaced = await store.grants.find(user.id, c.id);
      expect(replaced).toMatchObject({ userId: user.id, clientId: c.id, scope: 'openid courses:write', updatedAt: T0 + 10, expiresAt: T0 + 3600_000 });
      expectNumericTimes(replaced!, ['createdAt', 'updatedAt', 'expiresAt']);
      expect((await store.grants.listForUser(user.id)).filter((x) => x.clientId === c.id)).toHaveLength(1);
    });

    it('concurrent upserts of one grant all succeed and leave one row', async () => {
      const c = newClient();
      await store.clients.create(c);
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) => store.grants.upsert({ userId: user.id, clientId: c.id, scope: `scope-${i}`, createdAt: T0, updatedAt: T0 + i, expiresAt: null })),
      );
      expect(results.every((r) => r.status === 'fulfilled')).toBe(true);
      expect((await store.grants.listForUser(user.id)).filter((x) => x.clientId === c.id)).toHaveLength(1);
    });

    it('setEnd moves when an existing grant ends, or makes it last until disconnected; an unknown grant gives false', async () => {
      const c = newClient();
      await store.clients.create(c);
      await store.grants.upsert({ userId: user.id, clientId: c.id, scope: 'courses:read', createdAt: T0, updatedAt: T0, expiresAt: T0 + 1000 });
      expect(await store.grants.setEnd(user.id, c.id, T0 + 86_400_000, T0 + 5)).toBe(true);
      expect(await store.grants.find(user.id, c.id)).toMatchObject({ expiresAt: T0 + 86_400_000, updatedAt: T0 + 5, scope: 'courses:read', createdAt: T0 });
      expect(await store.grants.setEnd(user.id, c.id, null, T0 + 6)).toBe(true);
      expect((await store.grants.find(user.id, c.id))!.expiresAt).toBeNull();
      expect(await store.grants.setEnd(user.id, id('lyc_client_'), null, T0)).toBe(false);
    });

    it('find of an unknown pair gives undefined', async () => {
      expect(await store.grants.find(user.id, id('lyc_client_'))).toBeUndefined();
      expect(await store.grants.find(id('u-'), client.id)).toBeUndefined();
    });

    it("listForUser lists exactly that user's grants", async () => {
      const u = newUser();
      const other = newUser();
      await store.users.create(u);
      await store.users.create(other);
      const clients = [newClient(), newClient(), newClient()];
      for (const c of clients) await store.clients.create(c);
      for (const [i, c] of clients.entries()) {
        await store.grants.upsert({ userId: u.id, clientId: c.id, scope: 'courses:read', createdAt: T0 + i, updatedAt: T0 + i, expiresAt: null });
      }
      await store.grants.upsert({ userId: other.id, clientId: clients[0]!.id, scope: 'openid', createdAt: T0, updatedAt: T0, expiresAt: null });
      const listed = await store.grants.listForUser(u.id);
      expect(listed.map((g) => g.clientId).sort()).toEqual(clients.map((c) => c.id).sort());
      for (const g of listed) {
        expect(g.userId).toBe(u.id);
        expectNumericTimes(g, ['createdAt', 'updatedAt']);
      }
      expect(await store.grants.listForUser(id('u-'))).toEqual([]);
    });

    it('delete: true once, then false; the other grants stay', async () => {
      const u = newUser();
      await store.users.create(u);
      const a = newClient();
      const b = newClient();
      await store.clients.create(a);
      await store.clients.create(b);
      await store.grants.upsert({ userId: u.id, clientId: a.id, scope: 'openid', createdAt: T0, updatedAt: T0, expiresAt: null });
      await store.grants.upsert({ userId: u.id, clientId: b.id, scope: 'openid', createdAt: T0, updatedAt: T0, expiresAt: null });
      expect(await store.grants.delete(u.id, a.id)).toBe(true);
      expect(await store.grants.find(u.id, a.id)).toBeUndefined();
      expect(await store.grants.delete(u.id, a.id)).toBe(false);
      expect(await store.grants.find(u.id, b.id)).toBeDefined();
    });

    it("delete: the user's codes at that client die with the grant; other codes stay", async () => {
      const u = newUser();
      const other = newUser();
      await store.users.create(u);
      await store.users.create(other);
      const a = newClient();
      const b = newClient();
      await store.clients.create(a);
      await store.clients.create(b);
      await store.grants.upsert({ userId: u.id, clientId: a.id, scope: 'openid', createdAt: T0, updatedAt: T0, expiresAt: null });
      const doomed = newCode(a.id, u.id);
      const otherClient = newCode(b.id, u.id);
      const otherUser = newCode(a.id, other.id);
      for (const c of [doomed, otherClient, otherUser]) await store.codes.save(c);
      expect(await store.grants.delete(u.id, a.id)).toBe(true);
      expect(await store.codes.consume(doomed.hash, T0)).toEqual({ status: 'unknown' });
      expect((await store.codes.consume(otherClient.hash, T0)).status).toBe('consumed');
      expect((await store.codes.consume(otherUser.hash, T0)).status).toBe('consumed');
    });
  });
});
