import type { FastifyRequest } from 'fastify';
import type { Config } from '../config/index.ts';
import type { Deps } from '../deps.ts';
import { httpError, type HttpError } from '../http/errors/http-error.ts';
import { sha256 } from '../oauth/issued-tokens/secrets.ts';

/**
 * A growing delay between password checks of one account, wherever they come
 * from (the sign-in form, PATCH /api/v1/account's current_password) and from
 * however many addresses: the per-address rate limit alone let a few
 * addresses guess hundreds of times a minute at one account.
 *
 * The SIGN_IN_FREE_FAILURES-th wrong password in a row makes the account
 * wait SIGN_IN_FIRST_DELAY_SECONDS; each further one doubles the wait, up to
 * SIGN_IN_MAX_DELAY_SECONDS. While it waits, no password of the account is
 * checked, the right one included: otherwise the wait would not slow a
 * guesser at all. A failure is counted when the check's answer is known;
 * checks in flight are held back so that their failures cannot overshoot. It is never a lockout: once the wait is over the owner
 * signs in as usual, and a correct password forgets the count.
 *
 * The count lives in the store (every instance behind the load balancer
 * shares it), keyed by a hash of the normalized email, for emails without an
 * account as well, so the answers do not tell which accounts exist.
 */

/** The store key of an account: the SHA-256 of its email as sign-in compares it (trimmed, lower-cased). */
export function accountKey(email: string): string {
  return sha256(`password-failures:${email.trim().toLowerCase()}`);
}

/** The wait after the `failures`-th failure, in milliseconds: none for the free ones, then doubling to the cap. */
export function delayAfter(failures: number, settings: Config['passwordFailures']): number {
  if (failures < settings.free) return 0;
  const doublings = Math.min(failures - settings.free, 30);
  return Math.min(settings.firstDelay * 2 ** doublings, settings.maxDelay) * 1000;
}

/** The message people and clients see. */
export function tooManyFailures(seconds: number): string {
  return `Too many failed sign-ins for this account. Try again in ${seconds} second${seconds === 1 ? '' : 's'}.`;
}

/** Whole seconds from `now` until `until`, at least one: what Retry-After and the pages announce. */
export const secondsUntil = (until: number, now: number) => Math.max(1, Math.ceil((until - now) / 1000));

/** How long a begun check counts as in flight: an instance that stops in the middle of one holds no one back for longer. */
const IN_FLIGHT_MS = 30_000;
/** How long a check waits, at most, for the checks in flight before it; then it is refused for a second. */
const BUSY_WAIT_MS = 5_000;

/** A password check of one account, begun before the password is verified. */
export interface ClaimedCheck {
  /** Set when the account is waiting: the check is refused for this many seconds. */
  refusedFor?: number;
}

/**
 * Begins a password check of the account before the password is verified:
 * refused while the account waits. Checks in flight are counted, and one
 * that would let their failures reach the free ones waits for their answers
 * first: so parallel guesses never get more checks than the free failures
 * before the wait, and parallel correct sign-ins are never refused (each
 * right answer forgets the count, and the next goes in). End every allowed
 * check with passwordRight() or passwordWrong().
 */
export async function claimCheck(deps: Deps, email: string): Promise<ClaimedCheck> {
  const settings = deps.config.passwordFailures;
  const key = accountKey(email);
  const gaveUpAt = Date.now() + BUSY_WAIT_MS;
  for (;;) {
    const now = deps.now();
    const start = await deps.store.passwordFailures.begin(key, now, { free: settings.free, pendingMs: IN_FLIGHT_MS });
    if (start.state === 'allowed') return {};
    // Measured from after the check: one that queued behind a racing one may meet a wait that
    // began after `now` was read, and must not announce more time than is left.
    if (start.state === 'refused') return { refusedFor: secondsUntil(start.blockedUntil, Math.max(now, deps.now())) };
    if (Date.now() >= gaveUpAt) return { refusedFor: 1 };
    await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 30));
  }
}

/**
 * Ends a check with a wrong password: counted, and logged with the account
 * and the client address (never the password). Returns the seconds the
 * account now waits, if this failure started a wait.
 */
export async function passwordWrong(deps: Deps, request: FastifyRequest, email: string, event: string): Promise<number | undefined> {
  const settings = deps.config.passwordFailures;
  const now = deps.now();
  const { failures, blockedUntil } = await deps.store.passwordFailures.finish(accountKey(email), false, now, (n) => delayAfter(n, settings), settings.forgetAfter * 1000);
  const wait = blockedUntil > now ? secondsUntil(blockedUntil, now) : undefined;
  request.log.info({ event, email: email.trim().toLowerCase(), ip: request.ip, failures, ...(wait ? { wait_seconds: wait } : {}) }, 'wrong password');
  return wait;
}

/** Ends a check with a correct password: the account's failures are forgotten. */
export async function passwordRight(deps: Deps, email: string): Promise<void> {
  const settings = deps.config.passwordFailures;
  await deps.store.passwordFailures.finish(accountKey(email), true, deps.now(), (n) => delayAfter(n, settings), settings.forgetAfter * 1000);
}

/** The API's answer while an account waits: 429 too_many_requests with Retry-After (RFC 6585 §4). */
export function tooManyFailuresError(seconds: number): HttpError {
  const err = httpError('too_many_requests', tooManyFailures(seconds));
  err.headers['retry-after'] = String(seconds);
  return err;
}
