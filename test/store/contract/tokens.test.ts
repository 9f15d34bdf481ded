/**
 * The store contract of tokens (src/store/repositories/), run against every
 * store kind: SQLite always, PostgreSQL when TEST_DATABASE_URL is set.
 */
import { randomUUID } from 'node:crypto';
import { ROTATION_STAMP_SLACK_MS } from '../../../src/store/repositories/tokens.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, Store, User } from '../../../src/store/types.ts';
import { STORE_KINDS } from '../../helpers/stores.ts';
import { PAST, T0, expectNumericTimes, hash, id, newClient, newToken, newUser, openContractStore } from '../../helpers/store-contract.ts';

describe.each(STORE_KINDS)('store contract: tokens (%s)', (kind) => {
  let store: Store, user: User, client: Client;
  beforeAll(async () => ({ store, user, client } = await openContractStore(kind)));
  afterAll(() => store?.close());

  describe('tokens', () => {
    it('insert → find round-trips every field with numeric times', async () => {
      const access = newToken(client.id, user.id, { kind: 'access', resource: 'http://127.0.0.1:3000', salt: null });
      const refresh = newToken(client.id, user.id, { familyId: access.familyId, revokedAt: T0 + 7, rotatedAt: T0 + 6 });
      await store.tokens.insert([access, refresh]);
      const a = await store.tokens.find(access.hash);
      const r = await store.tokens.find(refresh.hash);
      expect(a).toEqual(access);
      expect(r).toEqual(refresh);
      expectNumericTimes(a!, ['authTime', 'expiresAt', 'createdAt', 'revokedAt', 'rotatedAt']);
      expectNumericTimes(r!, ['authTime', 'expiresAt', 'createdAt', 'revokedAt', 'rotatedAt']);
      expect(typeof r!.revokedAt).toBe('number');
      expect(typeof r!.rotatedAt).toBe('number');
    });

    it('find of an unknown hash gives undefined; insert([]) does nothing', async () => {
      await store.tokens.insert([]);
      expect(await store.tokens.find(hash())).toBeUndefined();
    });

    it('insert is idempotent: a hash already present is left as it is, new ones in the batch still go in', async () => {
      const t = newToken(client.id, user.id);
      await store.tokens.insert([t]);
      await store.tokens.insert([t]);
      const changed = { ...t, scope: 'courses:write', expiresAt: T0 + 1, revokedAt: T0 };
      const fresh = newToken(client.id, user.id, { kind: 'access', salt: null });
      await store.tokens.insert([changed, fresh]);
      expect(await store.tokens.find(t.hash)).toEqual(t);
      expect(await store.tokens.find(fresh.hash)).toEqual(fresh);
    });

    it('concurrent inserts of the same hash all succeed and leave one row', async () => {
      const t = newToken(client.id, user.id);
      const results = await Promise.allSettled(Array.from({ length: 10 }, () => store.tokens.insert([t])));
      expect(results.every((r) => r.status === 'fulfilled')).toBe(true);
      expect(await store.tokens.find(t.hash)).toEqual(t);
    });

    it('rotate: a live refresh token is marked rotated and its successors are inserted', async () => {
      const old = newToken(client.id, user.id);
      await store.tokens.insert([old]);
      const successors = [newToken(client.id, user.id, { kind: 'access', familyId: old.familyId, salt: null }), newToken(client.id, user.id, { familyId: old.familyId })];
      const result = await store.tokens.rotate(old.hash, () => T0 + 100, successors);
      expect(result.status).toBe('rotated');
      if (result.status !== 'rotated') throw new Error('unreachable');
      expect(result.token.hash).toBe(old.hash);
      expectNumericTimes(result.token, ['authTime', 'expiresAt', 'createdAt', 'revokedAt', 'rotatedAt']);
      const after = await store.tokens.find(old.hash);
      expect(after).toMatchObject({ rotatedAt: T0 + 100, revokedAt: null });
      expect(typeof after!.rotatedAt).toBe('number');
      for (const s of successors) expect(await store.tokens.find(s.hash)).toEqual(s);
    });

    it('rotate stamps the rotation when it got through: again at the end when it took longer than the slack', async () => {
      const stampOf = async (steps: number[]) => {
        const old = newToken(client.id, user.id, { kind: 'refresh' });
        await store.tokens.insert([old]);
        const times = [...steps];
        await store.tokens.rotate(old.hash, () => times.shift() ?? steps[steps.length - 1]!, [newToken(client.id, user.id, { kind: 'refresh' })]);
        return (await store.tokens.find(old.hash))!.rotatedAt;
      };
      // The clock moved less than the slack during the rotation: the claim's own stamp stands.
      expect(await stampOf([T0, T0 + ROTATION_STAMP_SLACK_MS - 1])).toBe(T0);
      // It waited (a lock held elsewhere): stamped when it got through.
      expect(await stampOf([T0, T0 + 5_000])).toBe(T0 + 5_000);
    });

    it('rotate does not check expiry', async () => {
      const old = newToken(client.id, user.id, { expiresAt: T0 - 1 });
      await store.tokens.insert([old]);
      expect((await store.tokens.rotate(old.hash, () => T0 + 1_000_000, [])).status).toBe('rotated');
    });

    it('rotate of an already rotated token gives already_rotated and leaves its new successors out', async () => {
      const old = newToken(client.id, user.id);
      await store.tokens.insert([old]);
      const firstSuccessor = newToken(client.id, user.id, { familyId: old.familyId });
      expect((await store.tokens.rotate(old.hash, () => T0 + 1, [firstSuccessor])).status).toBe('rotated');
      const lateSuccessor = newToken(client.id, user.id, { familyId: old.familyId });
      const again = await store.tokens.rotate(old.hash, () => T0 + 2, [lateSuccessor]);
      expect(again.status).toBe('already_rotated');
      if (again.status !== 'already_rotated') throw new Error('unreachable');
      expect(again.token).toMatchObject({ hash: old.hash, rotatedAt: T0 + 1 });
      expect(await store.tokens.find(lateSuccessor.hash)).toBeUndefined();
      expect(await store.tokens.find(firstSuccessor.hash)).toEqual(firstSuccessor);
      expect((await store.tokens.find(old.hash))!.rotatedAt).toBe(T0 + 1);
    });

    it('20 concurrent rotate() calls: exactly one rotated, only its successors are stored', async () => {
      const old = newToken(client.id, user.id);
      await store.tokens.insert([old]);
      const successorSets = Array.from({ length: 20 }, () => [
        newToken(client.id, user.id, { kind: 'access', familyId: old.familyId, salt: null }),
        newToken(client.id, user.id, { familyId: old.familyId }),
      ]);
      const results = await Promise.all(successorSets.map((s, i) => store.tokens.rotate(old.hash, () => T0 + 1000 + i, s)));
      const winners = results.flatMap((r, i) => (r.status === 'rotated' ? [i] : []));
      expect(winners).toHaveLength(1);
      expect(results.filter((r) => r.status === 'already_rotated')).toHaveLength(19);
      const winner = winners[0]!;
      for (const [i, set] of successorSets.entries()) {
        for (const s of set) {
          const found = await store.tokens.find(s.hash);
          if (i === winner) expect(found).toEqual(s);
          else expect(found, `successor of loser ${i}`).toBeUndefined();
        }
      }
      expect((await store.tokens.find(old.hash))!.rotatedAt).toBe(T0 + 1000 + winner);
    });

    it('rotation and successor insertion are one transaction: a failing successor leaves the token unrotated', async () => {
      const old = newToken(client.id, user.id);
      await store.tokens.insert([old]);
      // The successor names a client that does not exist: its insert violates a foreign key.
      const bad = newToken(id('lyc_client_missing_'), user.id, { familyId: old.familyId });
      const good = newToken(client.id, user.id, { kind: 'access', familyId: old.familyId, salt: null });
      await expect(store.tokens.rotate(old.hash, () => T0 + 1, [good, bad])).rejects.toThrow();
      expect((await store.tokens.find(old.hash))!.rotatedAt).toBeNull();
      expect(await store.tokens.find(good.hash)).toBeUndefined();
      expect(await store.tokens.find(bad.hash)).toBeUndefined();
      // ...and can still be rotated afterwards.
      expect((await store.tokens.rotate(old.hash, () => T0 + 2, [good])).status).toBe('rotated');
      expect(await store.tokens.find(good.hash)).toEqual(good);
    });

    it('rotate of a revoked refresh token gives unusable (with the token) and inserts nothing', async () => {
      const old = newToken(client.id, user.id, { revokedAt: T0 });
      await store.tokens.insert([old]);
      const successor = newToken(client.id, user.id, { familyId: old.familyId });
      const result = await store.tokens.rotate(old.hash, () => T0 + 1, [successor]);
      expect(result.status).toBe('unusable');
      if (result.status === 'unusable' && result.token) expect(result.token.hash).toBe(old.hash);
      expect(await store.tokens.find(successor.hash)).toBeUndefined();
      expect((await store.tokens.find(old.hash))!.rotatedAt).toBeNull();
    });

    it('rotate of a token revoked after insert (via revoke) gives unusable', async () => {
      const old = newToken(client.id, user.id);
      await store.tokens.insert([old]);
      expect(await store.tokens.revoke(old.hash, T0 + 1)).toBe(true);
      expect((await store.tokens.rotate(old.hash, () => T0 + 2, [])).status).toBe('unusable');
    });

    it('rotate of an unknown hash gives unusable without a token', async () => {
      const successor = newToken(client.id, user.id);
      const result = await store.tokens.rotate(hash(), () => T0, [successor]);
      expect(result).toEqual({ status: 'unusable' });
      expect(await store.tokens.find(successor.hash)).toBeUndefined();
    });

    it('rotate of an access token gives unusable', async () => {
      const access = newToken(client.id, user.id, { kind: 'access', salt: null });
      await store.tokens.insert([access]);
      expect((await store.tokens.rotate(access.hash, () => T0 + 1, [])).status).toBe('unusable');
      expect((await store.tokens.find(access.hash))!.rotatedAt).toBeNull();
    });

    it('revoke: true once with revokedAt set, then false; false for an unknown hash', async () => {
      const t = newToken(client.id, user.id, { kind: 'access', salt: null });
      await store.tokens.insert([t]);
      expect(await store.tokens.revoke(t.hash, T0 + 3)).toBe(true);
      const after = await store.tokens.find(t.hash);
      expect(after!.revokedAt).toBe(T0 + 3);
      expect(typeof after!.revokedAt).toBe('number');
      expect(await store.tokens.revoke(t.hash, T0 + 4)).toBe(false);
      expect((await store.tokens.find(t.hash))!.revokedAt).toBe(T0 + 3);
      expect(await store.tokens.revoke(hash(), T0)).toBe(false);
    });

    it('revokeFamily revokes every live token of the family, returns how many, and spares other families', async () => {
      const familyId = randomUUID();
      const members = [newToken(client.id, user.id, { familyId, kind: 'access', salt: null }), newToken(client.id, user.id, { familyId, rotatedAt: T0 }), newToken(client.id, user.id, { familyId })];
      const alreadyRevoked = newToken(client.id, user.id, { familyId, revokedAt: T0 - 1 });
      const stranger = newToken(client.id, user.id);
      await store.tokens.insert([...members, alreadyRevoked, stranger]);
      expect(await store.tokens.revokeFamily(familyId, T0 + 50)).toBe(3);
      for (const m of members) expect((await store.tokens.find(m.hash))!.revokedAt).toBe(T0 + 50);
      expect((await store.tokens.find(alreadyRevoked.hash))!.revokedAt).toBe(T0 - 1);
      expect((await store.tokens.find(stranger.hash))!.revokedAt).toBeNull();
      expect(await store.tokens.revokeFamily(familyId, T0 + 60)).toBe(0);
      expect(await store.tokens.revokeFamily(randomUUID(), T0)).toBe(0);
    });

    it('revokeForGrant revokes the live tokens of one user at one client only', async () => {
      const u = newUser();
      const other = newUser();
      const c = newClient();
      const otherClient = newClient();
      await store.users.create(u);
      await store.users.create(other);
      await store.clients.create(c);
      await store.clients.create(otherClient);
      const targets = [newToken(c.id, u.id, { kind: 'access', salt: null }), newToken(c.id, u.id), newToken(c.id, u.id)];
      const revokedBefore = newToken(c.id, u.id, { revokedAt: T0 - 5 });
      const sameUserOtherClient = newToken(otherClient.id, u.id);
      const otherUserSameClient = newToken(c.id, other.id);
      await store.tokens.insert([...targets, revokedBefore, sameUserOtherClient, otherUserSameClient]);
      expect(await store.tokens.revokeForGrant(u.id, c.id, T0 + 9)).toBe(3);
      for (const t of targets) expect((await store.tokens.find(t.hash))!.revokedAt).toBe(T0 + 9);
      expect((await store.tokens.find(revokedBefore.hash))!.revokedAt).toBe(T0 - 5);
      expect((await store.tokens.find(sameUserOtherClient.hash))!.revokedAt).toBeNull();
      expect((await store.tokens.find(otherUserSameClient.hash))!.revokedAt).toBeNull();
      expect(await store.tokens.revokeForGrant(u.id, c.id, T0 + 10)).toBe(0);
    });

    it('purgeExpired deletes tokens expired or revoked before the given time and returns how many', async () => {
      const far = PAST + 10_000_000;
      const expired = newToken(client.id, user.id, { createdAt: PAST - 100, expiresAt: PAST - 1 });
      const expiredAccess = newToken(client.id, user.id, { kind: 'access', salt: null, createdAt: PAST - 100, expiresAt: PAST - 50 });
      const revokedEarly = newToken(client.id, user.id, { createdAt: PAST - 100, expiresAt: far, revokedAt: PAST - 1 });
      const expiresAtBoundary = newToken(client.id, user.id, { createdAt: PAST - 100, expiresAt: PAST });
      const revokedAtBoundary = newToken(client.id, user.id, { createdAt: PAST - 100, expiresAt: far, revokedAt: PAST });
      const live = newToken(client.id, user.id, { createdAt: PAST - 100, expiresAt: far });
      const all = [expired, expiredAccess, revokedEarly, expiresAtBoundary, revokedAtBoundary, live];
      await store.tokens.insert(all);
      expect(await store.tokens.purgeExpired(PAST)).toBe(3);
      for (const t of [expired, expiredAccess, revokedEarly]) expect(await store.tokens.find(t.hash)).toBeUndefined();
      for (const t of [expiresAtBoundary, revokedAtBoundary, live]) expect(await store.tokens.find(t.hash)).toEqual(t);
      expect(await store.tokens.purgeExpired(PAST)).toBe(0);
    });

    it('purgeExpired works through more rows than one batch takes, and keeps every live token', async () => {
      const far = PAST + 10_000_000;
      const expired = Array.from({ length: 450 }, () => newToken(client.id, user.id, { createdAt: PAST - 100, expiresAt: PAST - 10 }));
      const revoked = Array.from({ length: 330 }, () => newToken(client.id, user.id, { createdAt: PAST - 100, expiresAt: far, revokedAt: PAST - 10 }));
      const live = Array.from({ length: 40 }, (_, i) => newToken(client.id, user.id, { createdAt: PAST - 100, expiresAt: far, revokedAt: i % 2 ? PAST + 5 : null }));
      await store.tokens.insert([...expired, ...revoked, ...live]);
      expect(await store.tokens.purgeExpired(PAST)).toBe(expired.length + revoked.length);
      for (const t of live) expect(await store.tokens.find(t.hash)).toEqual(t);
      for (const t of [expired[0]!, expired.at(-1)!, revoked[0]!, revoked.at(-1)!]) expect(await store.tokens.find(t.hash)).toBeUndefined();
    });
  });

  describe('tokens: revokeForUser', () => {
    it('revokes the live tokens of one user at every client, returns how many, and spares other users', async () => {
      const u = newUser();
      const other = newUser();
      const c = newClient();
      await store.users.create(u);
      await store.users.create(other);
      await store.clients.create(c);
      const targets = [newToken(c.id, u.id, { kind: 'access', salt: null }), newToken(c.id, u.id), newToken(client.id, u.id)];
      const revokedBefore = newToken(c.id, u.id, { revokedAt: T0 - 5 });
      const otherUser = newToken(c.id, other.id);
      await store.tokens.insert([...targets, revokedBefore, otherUser]);
      expect(await store.tokens.revokeForUser(u.id, T0 + 7)).toBe(3);
      for (const t of targets) expect((await store.tokens.find(t.hash))!.revokedAt).toBe(T0 + 7);
      expect((await store.tokens.find(revokedBefore.hash))!.revokedAt).toBe(T0 - 5);
      expect((await store.tokens.find(otherUser.hash))!.revokedAt).toBeNull();
      expect(await store.tokens.revokeForUser(u.id, T0 + 8)).toBe(0);
    });
  });
});
