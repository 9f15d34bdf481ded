/** An Idempotency-Key's row: the request's fingerprint and, once it finished, its sealed answer. */
export interface IdempotencyRecord {
  /** SHA-256 of caller, method, path and key. */
  hash: string;
  /** SHA-256 of the request body as the caller sent it (src/platform/idempotency.ts). */
  fingerprint: string;
  /** The answer's status; null while the first request still runs. */
  status: number | null;
  /** The answer (status line aside), sealed; null while the first request still runs. */
  response: string | null;
  createdAt: number;
  expiresAt: number;
}

export type IdempotencyClaim = { claimed: true } | { claimed: false; existing: IdempotencyRecord };

export interface IdempotencyKeyStore {
  /**
   * Contract: inserts the row as running (status null) unless the hash is
   * taken; of racing claims, on any number of instances, exactly one gets
   * `claimed`. A running row created before `staleBefore` (its request died
   * with its process) is taken over by one claimer. Otherwise the row found.
   */
  claim(row: Pick<IdempotencyRecord, 'hash' | 'fingerprint' | 'createdAt' | 'expiresAt'>, staleBefore: number): Promise<IdempotencyClaim>;
  /** Contract: stores the answer of a running row; false when there is none (it was released). */
  complete(hash: string, status: number, response: string): Promise<boolean>;
  /** Contract: deletes a running row (its request failed), so that the key may be used again. */
  release(hash: string): Promise<void>;
  find(hash: string): Promise<IdempotencyRecord | undefined>;
  /** Deletes rows whose expiresAt is before `before`; returns how many. */
  purgeExpired(before: number): Promise<number>;
}
