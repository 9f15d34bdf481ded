import { createHash, timingSafeEqual } from 'node:crypto';

/** RFC 7636 §4.1: code_verifier = 43*128unreserved. The challenge is the same alphabet. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** An S256 challenge is BASE64URL(SHA256(verifier)): always 43 characters, no padding. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export const isWellFormedVerifier = (v: string): boolean => VERIFIER.test(v);
export const isWellFormedS256Challenge = (c: string): boolean => S256_CHALLENGE.test(c);

/**
 * RFC 7636 §4.6: BASE64URL-ENCODE(SHA256(ASCII(code_verifier))) == code_challenge.
 * Does NOT check the verifier's form; call isWellFormedVerifier first.
 */
export function verifyS256(verifier: string, challenge: string): boolean {
  const hash = createHash('sha256');
  // The verifier is unreserved ASCII (isWellFormedVerifier): its UTF-8 octets are its ASCII octets.
  hash.update(verifier);
  const computed = Buffer.from(hash.digest('base64url'));
  const expected = Buffer.from(challenge);
  if (computed.length !== expected.length) return false;
  return timingSafeEqual(computed, expected);
}
