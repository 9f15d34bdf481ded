import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

describe.each(STORE_KINDS)('signing key rotation (%s)', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(() => server.close());

  const jwks = async () => (await (await fetch(`${server.issuer}/.well-known/jwks.json`)).json()) as { keys: { kid: string; alg: string }[] };
  const sign = () => server.deps.idTokens!.sign({ clientId: 'c', userId: 'u', nonce: 'n', authTime: Date.now(), accessToken: 'lyc_at_x', scope: 'openid', alg: 'RS256' });

  it('publishes one RS256 and one ES256 key on first start', async () => {
    const { keys } = await jwks();
    expect(keys.map((k) => k.alg).sort()).toEqual(['ES256', 'RS256']);
  });

  it('keeps a token signed before rotation valid, and signs new tokens with the new key', async () => {
    const before = await sign();
    const oldKid = decodeProtectedHeader(before).kid;
    const [newRsaKid] = await server.deps.keys.rotate();
    const after = await sign();
    expect(decodeProtectedHeader(after).kid).toBe(newRsaKid);
    expect(newRsaKid).not.toBe(oldKid);

    await new Promise((r) => setTimeout(r, 2100)); // past the JWKS cache
    const set = await jwks();
    expect(set.keys.map((k) => k.kid)).toContain(oldKid);
    expect(set.keys.map((k) => k.kid)).toContain(newRsaKid);
    const local = createLocalJWKSet(set as never);
    await jwtVerify(before, local, { issuer: server.issuer });
    await jwtVerify(after, local, { issuer: server.issuer });
  });

  it('drops a retired key from the JWKS once every token it signed has expired', async () => {
    const before = await sign();
    const oldKid = decodeProtectedHeader(before).kid;
    await server.deps.keys.rotate();
    server.advance(3601_000 + 3000); // ID_TOKEN_TTL_SECONDS (3600) later, past the cache
    const set = await jwks();
    expect(set.keys.map((k) => k.kid)).not.toContain(oldKid);
    expect(set.keys).toHaveLength(2);
  });

  it('keeps private keys sealed in the store', async () => {
    const rows = await server.deps.store.signingKeys.listPublished(0);
    for (const r of rows) {
      expect(r.sealedPrivateJwk.split('.')).toHaveLength(5); // compact JWE
      expect(r.sealedPrivateJwk).not.toContain('"d"');
      expect(JSON.stringify(r.publicJwk)).not.toContain('"d"');
    }
  });
});
