/**
 * The store contract of signing keys (src/store/repositories/), run against every
 * store kind: SQLite always, PostgreSQL when TEST_DATABASE_URL is set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SigningKey, Store } from '../../../src/store/types.ts';
import { STORE_KINDS } from '../../helpers/stores.ts';
import { T0, expectNumericTimes, id, openContractStore } from '../../helpers/store-contract.ts';

describe.each(STORE_KINDS)('store contract: signing keys (%s)', (kind) => {
  let store: Store;
  beforeAll(async () => ({ store } = await openContractStore(kind)));
  afterAll(() => store?.close());

  describe('signing keys', () => {
    const key = (over: Partial<SigningKey>): SigningKey => ({
      kid: id('kid-'),
      alg: 'ES256',
      publicJwk: { kty: 'EC', crv: 'P-256', x: 'x', y: 'y' },
      sealedPrivateJwk: 'sealed.jwe',
      createdAt: T0,
      retiredAt: null,
      ...over,
    });

    it('retireOthers retires every current key of the algorithm except the kept one, and listPublished shows the window', async () => {
      const old = key({ createdAt: T0 + 1 });
      const keep = key({ createdAt: T0 + 2 });
      const rsa = key({ alg: 'RS256', publicJwk: { kty: 'RSA', n: 'n', e: 'AQAB' }, createdAt: T0 + 3 });
      const longRetired = key({ createdAt: T0, retiredAt: T0 - 1_000_000 });
      for (const k of [old, keep, rsa, longRetired]) await store.signingKeys.insert(k);
      expect(await store.signingKeys.retireOthers('ES256', keep.kid, T0 + 100)).toBe(1);
      expect(await store.signingKeys.retireOthers('ES256', keep.kid, T0 + 200)).toBe(0);
      const published = await store.signingKeys.listPublished(T0);
      expect(published.map((k) => k.kid)).toEqual([rsa.kid, keep.kid, old.kid]);
      expect(published.find((k) => k.kid === old.kid)).toEqual({ ...old, retiredAt: T0 + 100 });
      expect(published.find((k) => k.kid === rsa.kid)).toEqual(rsa);
      for (const k of published) expectNumericTimes(k, ['createdAt', 'retiredAt']);
      expect((await store.signingKeys.listPublished(T0 + 101)).map((k) => k.kid)).toEqual([rsa.kid, keep.kid]);
    });
  });
});
