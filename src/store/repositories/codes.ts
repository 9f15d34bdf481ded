import type { Token } from './tokens.ts';

export interface AuthorizationCode {
  hash: string;
  clientId: string;
  userId: string;
  redirectUri: string;
  scope: string;
  resource: string | null;
  nonce: string | null;
  codeChallenge: string;
  authTime: number;
  /** Every token issued from this code shares it; a replay revokes the family. */
  familyId: string;
  expiresAt: number;
  createdAt: number;
}

export type ConsumeResult = { status: 'consumed'; code: AuthorizationCode } | { status: 'already_consumed'; code: AuthorizationCode } | { status: 'unknown' };

export interface CodeStore {
  save(code: AuthorizationCode): Promise<void>;
  /**
   * Contract: atomically marks the code used. Exactly one caller ever gets
   * 'consumed' for a hash, however many race; later ones get
   * 'already_consumed'. The winner's `issue` runs inside the same transaction
   * and the tokens it returns are stored with the consumption, so a racing
   * replay that revokes the code's family always sees them. Expiry is NOT checked here.
   */
  consume(hash: string, now: number, issue?: (code: AuthorizationCode) => Token[]): Promise<ConsumeResult>;
  /** Deletes codes that expired before `before`; returns how many. */
  purgeExpired(before: number): Promise<number>;
}
