import type { SigningAlg } from '../../util/authorization-server.ts';

/** An ID token signing key; the private half stays sealed (a compact JWE) in the store. */
export interface SigningKey {
  kid: string;
  alg: SigningAlg;
  publicJwk: Record<string, unknown>;
  sealedPrivateJwk: string;
  createdAt: number;
  retiredAt: number | null;
}

export interface SigningKeyStore {
  insert(key: SigningKey): Promise<void>;
  /** Every key not retired, and retired ones with retiredAt >= `retiredSince`, newest first. */
  listPublished(retiredSince: number): Promise<SigningKey[]>;
  /** Contract: marks every current key of `alg` retired except `keepKid`, in one statement. */
  retireOthers(alg: SigningKey['alg'], keepKid: string, now: number): Promise<number>;
}
