/** The answer to a claimed password check (src/users/sign-in-throttle.ts). */
export interface PasswordCheckClaim {
  /** false: the account is waiting; check no password before blockedUntil. */
  allowed: boolean;
  /** Failures counted so far, this claim included when allowed. */
  failures: number;
  /** Allowed: the end of the wait this check starts if it fails (now when none). Refused: the end of the current wait. */
  blockedUntil: number;
}

/** The answer to begin(): the check may run, must wait for those in flight, or is refused until blockedUntil. */
export type PasswordCheckStart = { state: 'allowed' } | { state: 'busy' } | { state: 'refused'; failures: number; blockedUntil: number };

/**
 * Failed password checks, keyed by a hash of the account's normalized email
 * (for emails without an account too), and wrong user codes on the device
 * page, keyed by a hash of the account or the address. Shared by every
 * instance on the store.
 */
export interface PasswordFailureStore {
  /**
   * Contract: atomically, however many instances race for one key: while
   * the key waits (now < blockedUntil) refuses and changes nothing;
   * otherwise counts the check as a failure (from 1 again once the count
   * has expired), sets blockedUntil to now + delayFor(failures) and keeps
   * the count until `keepMs` after that. A check that then succeeds calls
   * clear(). Counting before the check means a burst of parallel guesses
   * meets the wait as soon as enough of them are counted.
   */
  claim(key: string, now: number, delayFor: (failures: number) => number, keepMs: number): Promise<PasswordCheckClaim>;
  /**
   * Contract (the sign-in's checks, counted when their answer is known):
   * atomically, however many instances race for one key: while the key waits
   * (now < blockedUntil) refuses and changes nothing. Otherwise, when checks
   * are in flight and counting them all as failures would reach `free`,
   * answers busy and changes nothing (the caller asks again shortly).
   * Otherwise counts one more check in flight, forgotten `pendingMs` after
   * now, and allows it. Each allowed check must be ended with finish().
   */
  begin(key: string, now: number, limits: { free: number; pendingMs: number }): Promise<PasswordCheckStart>;
  /**
   * Contract: ends a check begun with begin(): one fewer in flight; a right
   * password forgets the failures and the wait, a wrong one counts a failure
   * (from 1 again once the count has expired), sets blockedUntil to now +
   * delayFor(failures) and keeps the count until `keepMs` after that.
   * Returns the failures and blockedUntil (0 when no wait).
   */
  finish(key: string, right: boolean, now: number, delayFor: (failures: number) => number, keepMs: number): Promise<{ failures: number; blockedUntil: number }>;
  /**
   * Contract: gives back one allowed claim that turned out right, for keys
   * where only wrong answers count (user codes: src/users/device-code-throttle.ts):
   * the count drops by one (never below zero), and the wait that claim started
   * (`blockedUntil` as the claim returned it) is lifted unless a later claim
   * has set another. Unlike clear(), a right answer cannot wipe out the wrong
   * ones counted before it.
   */
  forgive(key: string, blockedUntil: number): Promise<void>;
  /** Deletes counts that expired before `before`; returns how many. */
  purgeExpired(before: number): Promise<number>;
}
