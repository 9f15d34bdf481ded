import { createHash } from 'node:crypto';
import { SignJWT } from 'jose';
import type { Config } from '../config/index.ts';
import type { IdTokenInput, IdTokenSigner } from '../deps.ts';
import type { KeyRing } from '../keys/keyring.ts';

/**
 * OIDC Core §3.1.3.6 at_hash: "the base64url encoding of the left-most half of
 * the hash of the octets of the ASCII representation of the access_token",
 * with the hash of the ID token's alg (SHA-256 for RS256 and ES256).
 */
export function atHash(accessToken: string): string {
  // Access tokens are ASCII: their UTF-8 octets are their ASCII octets.
  const digest = createHash('sha256').update(accessToken).digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

/** Signs ID tokens (OIDC Core §2) with the ring's current key of the client's algorithm. */
export function idTokenSigner(keys: KeyRing, config: Pick<Config, 'issuer' | 'idTokenTtl'>, now: () => number): IdTokenSigner {
  return {
    async sign(input: IdTokenInput) {
      const { alg } = input;
      const { kid, key } = await keys.signingKey(alg);
      const iat = Math.floor(now() / 1000);
      return new SignJWT({
        auth_time: Math.floor(input.authTime / 1000),
        ...(input.nonce ? { nonce: input.nonce } : {}),
        at_hash: atHash(input.accessToken),
      })
        .setProtectedHeader({ alg, kid, typ: 'JWT' })
        .setIssuer(config.issuer)
        .setSubject(input.userId)
        .setAudience(input.clientId)
        .setIssuedAt(iat)
        .setExpirationTime(iat + config.idTokenTtl)
        .sign(key);
    },
  };
}
