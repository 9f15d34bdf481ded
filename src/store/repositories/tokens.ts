export interface Token {
  hash: string;
  kind: 'access' | 'refresh';
  clientId: string;
  userId: string;
  scope: string;
  /** RFC 8707 audience; null means good for every Lyceum resource. */
  resource: string | null;
  familyId: string;
  authTime: number;
  expiresAt: number;
  createdAt: number;
  revokedAt: number | null;
  /** Refresh tokens: when the exchange for its successor was committed (the grace window's start). */
  rotatedAt: number | null;
  /** Refresh tokens: random salt from which the successor is derived. */
  salt: string | null;
}

export type RotateResult = { status: 'rotated'; token: Token } | { status: 'already_rotated'; token: Token } | { status: 'unusable'; token?: Token };

export interface TokenStore {
  /** Contract: inserts each token; a hash already present is left as it is (idempotent). */
  insert(tokens: Token[]): Promise<void>;
  find(hash: string): Promise<Token | undefined>;
  /**
   * Contract: atomically marks a live refresh token rotated and inserts its
   * successors in the same transaction. Exactly one of racing callers gets
   * 'rotated'. A token already rotated gives 'already_rotated' (successors
   * untouched); a revoked or unknown one gives 'unusable'. Expiry is NOT checked.
   * `clock` is read inside the transaction, once the claim got through: the
   * rotation is stamped with that time (to within ROTATION_STAMP_SLACK_MS),
   * not with the request's start.
   */
  rotate(hash: string, clock: () => number, successors: Token[]): Promise<RotateResult>;
  /** Contract: revokes one token; false if unknown or already revoked. */
  revoke(hash: string, now: number): Promise<boolean>;
  /** Revokes every live token of a family; returns how many. */
  revokeFamily(familyId: string, now: number): Promise<number>;
  /** Revokes every live token of a user at a client (used when consent is withdrawn). */
  revokeForGrant(userId: string, clientId: string, now: number): Promise<number>;
  /** Revokes every live token of a user at every client (a password change); returns how many. */
  revokeForUser(userId: string, now: number): Promise<number>;
  /** Deletes tokens expired or revoked before `before`; returns how many. */
  purgeExpired(before: number): Promise<number>;
}

/**
 * How far a rotation's stamp may lie before its commit: the claim is stamped
 * as it is sent, and stamped again only when the rotation took longer than
 * this (it waited on a lock), which saves a statement on every refresh. A
 * grace window of seconds is shortened by at most this much; on PostgreSQL,
 * where the rotation is one statement, the second stamp follows its commit,
 * and a replay read in between sees the first.
 */
export const ROTATION_STAMP_SLACK_MS = 250;
