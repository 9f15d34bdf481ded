import type { Token } from './tokens.ts';

/**
 * Where a device authorization (RFC 8628) stands: waiting for the person,
 * decided by them, or exchanged for tokens (once, ever).
 */
export type DeviceAuthorizationStatus = 'pending' | 'approved' | 'denied' | 'redeemed';

export interface DeviceAuthorization {
  /** SHA-256 of the device code. */
  hash: string;
  /** SHA-256 of the normalised user code (upper case, no dash). */
  userCodeHash: string;
  clientId: string;
  /** The scopes asked for; once approved, the scopes granted. */
  scope: string;
  resource: string | null;
  status: DeviceAuthorizationStatus;
  /** Who decided; null while pending. */
  userId: string | null;
  /** When that person last signed in; null while pending. */
  authTime: number | null;
  /** Every token issued from this authorization shares it. */
  familyId: string;
  /** Seconds the client must wait between polls; slow_down raises it. */
  interval: number;
  lastPolledAt: number | null;
  expiresAt: number;
  createdAt: number;
}

export type DeviceDecision = { status: 'approved'; userId: string; scope: string; authTime: number } | { status: 'denied'; userId: string };

/** What one poll does to the authorization, decided by the token endpoint from what it read. */
export type PollOutcome =
  /** Still waiting: remember this poll and the interval the client must keep from now on. */
  | { kind: 'wait'; interval: number }
  /** Approved: mark it redeemed and store these tokens with it. */
  | { kind: 'redeem'; tokens: Token[] }
  /** Refused (another client, expired, denied, already redeemed): change nothing. */
  | { kind: 'none' };

export interface DeviceAuthorizationStore {
  /** Contract: stores a new authorization; false (nothing stored) when its user code hash is taken. */
  create(authorization: DeviceAuthorization): Promise<boolean>;
  /** The authorization a user code names, whatever its status. */
  findByUserCode(userCodeHash: string): Promise<DeviceAuthorization | undefined>;
  /** The authorization a device code names, whatever its status. */
  find(hash: string): Promise<DeviceAuthorization | undefined>;
  /**
   * Contract: records the person's decision on a pending authorization that
   * has not expired at `now`; exactly one decision wins, however many race,
   * on any instance. Returns the decided authorization, or undefined when it
   * was not pending (already decided, redeemed, expired or unknown).
   */
  decide(hash: string, decision: DeviceDecision, now: number): Promise<DeviceAuthorization | undefined>;
  /**
   * Contract: one poll, atomically: the authorization is read and locked,
   * `step` decides from what it read, and its outcome is applied in the same
   * transaction, so concurrent polls from any instance see each other's
   * effects in turn: exactly one redeems an approved authorization, and a
   * poll always sees the interval the previous one set. Returns what `step`
   * saw, or undefined for an unknown hash (step is not called).
   */
  poll(hash: string, now: number, step: (a: DeviceAuthorization) => PollOutcome): Promise<DeviceAuthorization | undefined>;
  /** Deletes authorizations that expired before `before`; returns how many. */
  purgeExpired(before: number): Promise<number>;
}
