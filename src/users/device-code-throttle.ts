import type { Deps } from '../deps.ts';
import { delayAfter, secondsUntil } from './sign-in-throttle.ts';
import { AUTHORIZATION_SERVER } from '../util/authorization-server.ts';
import { sha256 } from '../oauth/issued-tokens/secrets.ts';

const LIMITS = AUTHORIZATION_SERVER.deviceFlow.wrongCodes;

/**
 * Wrong user codes typed on the device page, counted per account and per
 * client address in the store every instance shares (the password-failure
 * counts, under keys of their own). A user code is short (20^8 values,
 * docs/decisions.md), so guessing must be slow: a few wrong codes cost
 * nothing, then each one makes the next wait, doubling (the numbers are
 * AUTHORIZATION_SERVER.deviceFlow.wrongCodes).
 *
 * Each check is claimed (counted) before the code is looked up, so a burst
 * of parallel guesses is counted in full; a right code gives its claim back
 * (forgive), so a person approving many devices is never slowed, and an
 * attacker's own valid codes cannot wipe out the count of their guesses.
 */
export interface ClaimedCodeCheck {
  /** Set when the account or the address is waiting: no code is looked up for this many seconds. */
  refusedFor?: number;
  /** The claims this check made (key, and the end of the wait it started), to give back if the code is right. */
  claims: { key: string; blockedUntil: number }[];
}

const keyOf = (kind: 'account' | 'address', value: string) => sha256(`user-code-failures:${kind}:${value}`);

export async function claimCodeCheck(deps: Deps, userId: string, address: string): Promise<ClaimedCodeCheck> {
  const now = deps.now();
  const claims: ClaimedCodeCheck['claims'] = [];
  const counts = [
    { key: keyOf('account', userId), limits: LIMITS.perAccount },
    { key: keyOf('address', address), limits: LIMITS.perAddress },
  ];
  for (const { key, limits } of counts) {
    const claim = await deps.store.passwordFailures.claim(key, now, (failures) => delayAfter(failures, limits), limits.forgetAfter * 1000);
    if (!claim.allowed) {
      // The check will not happen: what was counted for it is given back.
      await codeWasRight(deps, { claims });
      // Measured from after the claim, as the sign-in throttle does: a wait may have begun after `now` was read.
      return { refusedFor: secondsUntil(claim.blockedUntil, Math.max(now, deps.now())), claims: [] };
    }
    claims.push({ key, blockedUntil: claim.blockedUntil });
  }
  return { claims };
}

/** The code named a real authorization: its claims are given back. */
export async function codeWasRight(deps: Deps, check: ClaimedCodeCheck): Promise<void> {
  for (const { key, blockedUntil } of check.claims) await deps.store.passwordFailures.forgive(key, blockedUntil);
}
