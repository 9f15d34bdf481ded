import { createHash, hkdfSync, randomUUID } from 'node:crypto';
import { compactDecrypt, CompactEncrypt, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import type { Config } from '../config/index.ts';
import type { SigningKey, Store } from '../store/types.ts';
import { resolveKeysSecret } from './keys-secret.ts';

import { AUTHORIZATION_SERVER, type SigningAlg } from '../util/authorization-server.ts';

const SIGNING_ALGS = AUTHORIZATION_SERVER.signingAlgs;

const ACTIVE_KEY_CACHE_MS = 30_000;
const JWKS_CACHE_MS = 2_000;

/**
 * ID-token signing keys kept in the store, shared by every instance. Private
 * halves are sealed with a key derived from KEYS_SECRET (jose JWE, dir +
 * A256GCM). Retired public keys stay published until the ID tokens they
 * signed have expired.
 */
export class KeyRing {
  private active = new Map<SigningAlg, { kid: string; key: CryptoKey; loadedAt: number }>();
  private jwksCache: { at: number; value: { keys: JWK[] } } | undefined;

  private constructor(
    private readonly store: Store,
    private readonly sealingKey: Uint8Array,
    private readonly secretSealingKey: Uint8Array,
    private readonly idTokenTtlMs: number,
    private readonly now: () => number,
  ) {}

  /** Opens the ring and creates a key of each algorithm on first start. */
  static async open(store: Store, config: Pick<Config, 'keysSecret' | 'database' | 'idTokenTtl'>, now: () => number = Date.now): Promise<KeyRing> {
    const secret = resolveKeysSecret(config);
    const sealingKey = new Uint8Array(hkdfSync('sha256', secret, 'lyceum', 'signing-key-sealing', 32));
    // A key of its own for other secrets the server must read back (webhook signing secrets).
    const secretSealingKey = new Uint8Array(hkdfSync('sha256', secret, 'lyceum', 'secret-sealing', 32));
    const ring = new KeyRing(store, sealingKey, secretSealingKey, config.idTokenTtl * 1000, now);
    const published = await store.signingKeys.listPublished(now());
    for (const alg of SIGNING_ALGS) {
      if (!published.some((k) => k.alg === alg && k.retiredAt === null)) await ring.addKey(alg);
    }
    return ring;
  }

  /** Adds a new key of each algorithm and retires the previous ones (`lyceum keys rotate`). */
  async rotate(): Promise<string[]> {
    const kids: string[] = [];
    for (const alg of SIGNING_ALGS) {
      const kid = await this.addKey(alg);
      await this.store.signingKeys.retireOthers(alg, kid, this.now());
      kids.push(kid);
    }
    this.active.clear();
    this.jwksCache = undefined;
    return kids;
  }

  private async addKey(alg: SigningAlg): Promise<string> {
    const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true, ...(alg === 'RS256' ? { modulusLength: 2048 } : {}) });
    const publicJwk = await exportJWK(publicKey);
    const privateJwk = await exportJWK(privateKey);
    const kid = createHash('sha256').update(JSON.stringify(publicJwk)).update(randomUUID()).digest('base64url').slice(0, 16);
    const sealed = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify(privateJwk))).setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid }).encrypt(this.sealingKey);
    const key: SigningKey = {
      kid,
      alg,
      publicJwk: { ...publicJwk, kid, alg, use: 'sig' },
      sealedPrivateJwk: sealed,
      createdAt: this.now(),
      retiredAt: null,
    };
    await this.store.signingKeys.insert(key);
    return kid;
  }

  /** The newest live key of `alg`, unsealed; cached briefly so a rotation elsewhere is picked up. */
  async signingKey(alg: SigningAlg): Promise<{ kid: string; key: CryptoKey }> {
    const cached = this.active.get(alg);
    if (cached && this.now() - cached.loadedAt < ACTIVE_KEY_CACHE_MS) return cached;
    const published = await this.store.signingKeys.listPublished(this.now());
    const current = published.find((k) => k.alg === alg && k.retiredAt === null);
    if (!current) throw new Error(`no active ${alg} signing key`);
    const { plaintext } = await compactDecrypt(current.sealedPrivateJwk, this.sealingKey);
    const key = (await importJWK(JSON.parse(new TextDecoder().decode(plaintext)) as JWK, alg)) as CryptoKey;
    const entry = { kid: current.kid, key, loadedAt: this.now() };
    this.active.set(alg, entry);
    return entry;
  }

  /**
   * Seals a secret the server must read back later (a webhook's signing
   * secret) the way signing keys are sealed: a compact JWE, dir + A256GCM,
   * under a key derived from KEYS_SECRET. The store keeps only this.
   */
  async sealSecret(secret: string): Promise<string> {
    return new CompactEncrypt(new TextEncoder().encode(secret)).setProtectedHeader({ alg: 'dir', enc: 'A256GCM' }).encrypt(this.secretSealingKey);
  }

  /** The secret sealSecret sealed; throws when it was sealed under another KEYS_SECRET or altered. */
  async unsealSecret(sealed: string): Promise<string> {
    const { plaintext } = await compactDecrypt(sealed, this.secretSealingKey);
    return new TextDecoder().decode(plaintext);
  }

  /** The JWK Set: live keys and keys retired less than an ID-token lifetime ago. */
  async jwks(): Promise<{ keys: JWK[] }> {
    const now = this.now();
    if (this.jwksCache && now - this.jwksCache.at < JWKS_CACHE_MS) return this.jwksCache.value;
    const keys = await this.store.signingKeys.listPublished(now - this.idTokenTtlMs);
    const value = { keys: keys.map((k) => k.publicJwk as JWK) };
    this.jwksCache = { at: now, value };
    return value;
  }
}
