/**
 * The store contract of authorization codes (src/store/repositories/), run against every
 * store kind: SQLite always, PostgreSQL when TEST_DATABASE_URL is set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/store/kysely/open.ts';
import type { AuthorizationCode, Client, Store, Token, User } from '../../../src/store/types.ts';
import { databaseConfig, STORE_KINDS } from '../../helpers/stores.ts';
import { PAST, T0, expectNumericTimes, hash, id, newCode, newToken, openContractStore } from '../../helpers/store-contract.ts';

describe.each(STORE_KINDS)('store contract: authorization codes (%s)', (kind) => {
  let store: Store, url: string, user: User, client: Client;
  beforeAll(async () => ({ store, url, user, client } = await openContractStore(kind)));
  afterAll(() => store?.close());

  describe('authorization codes', () => {
    it('consume: first call gets consumed with the code, later calls already_consumed with the code', async () => {
      const code = newCode(client.id, user.id, { resource: 'http://127.0.0.1:3000/mcp' });
      await store.codes.save(code);
      const first = await store.codes.consume(code.hash, T0 + 1);
      expect(first).toEqual({ status: 'consumed', code });
      if (first.status !== 'consumed') throw new Error('unreachable');
      expectNumericTimes(first.code, ['authTime', 'expiresAt', 'createdAt']);
      const again = await store.codes.consume(code.hash, T0 + 2);
      expect(again).toEqual({ status: 'already_consumed', code });
      if (again.status !== 'already_consumed') throw new Error('unreachable');
      expectNumericTimes(again.code, ['authTime', 'expiresAt', 'createdAt']);
    });

    it('consume of an unknown hash gives unknown', async () => {
      expect(await store.codes.consume(hash(), T0)).toEqual({ status: 'unknown' });
    });

    it('consume does not check expiry', async () => {
      const code = newCode(client.id, user.id, { expiresAt: T0 - 1 });
      await store.codes.save(code);
      expect((await store.codes.consume(code.hash, T0 + 1_000_000)).status).toBe('consumed');
    });

    it('20 concurrent consume() calls: exactly one consumed, 19 already_consumed', async () => {
      const code = newCode(client.id, user.id);
      await store.codes.save(code);
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.codes.consume(code.hash, T0 + i)));
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 'consumed')).toHaveLength(1);
      expect(statuses.filter((s) => s === 'already_consumed')).toHaveLength(19);
      for (const r of results) if (r.status !== 'unknown') expect(r.code.hash).toBe(code.hash);
    });

    it.runIf(kind === 'postgres')('20 concurrent consume() calls through two store instances: still exactly one winner', async () => {
      const second = openStore(databaseConfig(url));
      try {
        const code = newCode(client.id, user.id);
        await store.codes.save(code);
        const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? second : store).codes.consume(code.hash, T0 + i)));
        expect(results.filter((r) => r.status === 'consumed')).toHaveLength(1);
        expect(results.filter((r) => r.status === 'already_consumed')).toHaveLength(19);
      } finally {
        await second.close();
      }
    });

    it("consume(issue): the winner's tokens are stored with the consumption; issue runs once, for the winner only", async () => {
      const code = newCode(client.id, user.id);
      await store.codes.save(code);
      const calls: AuthorizationCode[] = [];
      const minted: Token[] = [];
      const issue = (c: AuthorizationCode) => {
        calls.push(c);
        const pair = [newToken(c.clientId, c.userId, { kind: 'access', familyId: c.familyId, salt: null }), newToken(c.clientId, c.userId, { familyId: c.familyId })];
        minted.push(...pair);
        return pair;
      };
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.codes.consume(code.hash, T0 + i, issue)));
      expect(results.filter((r) => r.status === 'consumed')).toHaveLength(1);
      expect(results.filter((r) => r.status === 'already_consumed')).toHaveLength(19);
      expect(calls).toHaveLength(1);
      expect(calls[0]).toEqual(code);
      for (const t of minted) expect(await store.tokens.find(t.hash)).toEqual(t);
      // A replay that revokes the family sees them.
      expect(await store.tokens.revokeFamily(code.familyId, T0 + 100)).toBe(2);
    });

    it('consume(issue): when storing the issued tokens fails, the code stays unconsumed', async () => {
      const code = newCode(client.id, user.id);
      await store.codes.save(code);
      // A token naming a client that does not exist violates a foreign key.
      const bad = newToken(id('lyc_client_missing_'), user.id, { familyId: code.familyId });
      await expect(store.codes.consume(code.hash, T0, () => [bad])).rejects.toThrow();
      expect(await store.tokens.find(bad.hash)).toBeUndefined();
      const good = newToken(client.id, user.id, { familyId: code.familyId });
      const retry = await store.codes.consume(code.hash, T0 + 1, () => [good]);
      expect(retry.status).toBe('consumed');
      expect(await store.tokens.find(good.hash)).toEqual(good);
    });

    it('consume(issue) of an unknown or already consumed code never calls issue', async () => {
      let called = 0;
      const issue = () => {
        called++;
        return [];
      };
      expect(await store.codes.consume(hash(), T0, issue)).toEqual({ status: 'unknown' });
      const code = newCode(client.id, user.id);
      await store.codes.save(code);
      expect((await store.codes.consume(code.hash, T0)).status).toBe('consumed');
      expect((await store.codes.consume(code.hash, T0, issue)).status).toBe('already_consumed');
      expect(called).toBe(0);
    });

    it('purgeExpired deletes codes that expired before the given time and returns how many', async () => {
      const gone1 = newCode(client.id, user.id, { expiresAt: PAST - 10, createdAt: PAST - 100 });
      const gone2 = newCode(client.id, user.id, { expiresAt: PAST - 1, createdAt: PAST - 100 });
      const atBoundary = newCode(client.id, user.id, { expiresAt: PAST, createdAt: PAST - 100 });
      const live = newCode(client.id, user.id, { expiresAt: PAST + 1, createdAt: PAST - 100 });
      for (const c of [gone1, gone2, atBoundary, live]) await store.codes.save(c);
      expect(await store.codes.purgeExpired(PAST)).toBe(2);
      expect(await store.codes.consume(gone1.hash, T0)).toEqual({ status: 'unknown' });
      expect(await store.codes.consume(gone2.hash, T0)).toEqual({ status: 'unknown' });
      expect((await store.codes.consume(atBoundary.hash, T0)).status).toBe('consumed');
      expect((await store.codes.consume(live.hash, T0)).status).toBe('consumed');
      expect(await store.codes.purgeExpired(PAST)).toBe(0);
    });
  });
});
