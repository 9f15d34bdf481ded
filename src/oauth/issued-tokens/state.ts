import type { Token, TokenStore } from '../../store/types.ts';
import { sha256, successorSecrets } from './secrets.ts';

/**
 * What a stored token is at a given instant. The one statement of expiry,
 * revocation and the refresh grace rule: the bearer guard, the refresh grant
 * and introspection all decide through tokenState, so they cannot disagree.
 */
export type TokenState =
  /** Neither revoked, expired nor rotated: the token works. */
  | 'active'
  /** A rotated refresh token inside its grace window whose successor is unused: a replay gets that same successor. */
  | 'replayable'
  /** A rotated refresh token past its grace window, or whose successor was used: presenting it ends its family. */
  | 'reused'
  | 'expired'
  | 'revoked';

/** What decides a rotated refresh token's state besides the token itself. */
export interface Rotation {
  /** REFRESH_GRACE_SECONDS. */
  graceSeconds: number;
  /** The refresh token it was exchanged for; undefined when none is stored. */
  successor: Token | undefined;
}

/**
 * The token's state at `now`. Access tokens are never rotated and need no
 * `rotation`; a rotated token given none is treated as one without grace.
 *
 * The grace window runs from the moment the rotation was committed
 * (rotatedAt, stamped by the store when its transaction got through) up to
 * and including rotatedAt + grace; a grace of 0 is no window at all, not
 * even the rotation's own millisecond. A request that read the clock before
 * the rotation it lost committed (a negative difference) raced it, or queued
 * behind the same stall, and is inside any window there is: a client whose
 * retries waited on a locked database gets the same successor.
 */
export function tokenState(token: Token, now: number, rotation?: Rotation): TokenState {
  if (token.revokedAt !== null) return 'revoked';
  if (now >= token.expiresAt) return 'expired';
  if (token.rotatedAt === null) return 'active';
  // RFC 6749 §10.4: "The previous refresh token is invalidated but retained by the authorization server.
  // If a refresh token is compromised and subsequently used by both the attacker and the legitimate client,
  // one of them will present an invalidated refresh token, which will inform the authorization server of the breach."
  // The grace window only forgives two workers of one client refreshing at once.
  const graceMs = (rotation?.graceSeconds ?? 0) * 1000;
  const withinGrace = graceMs > 0 && now - token.rotatedAt <= graceMs;
  // A successor that was itself rotated (or revoked) is no longer current: handing it out again would revive a used token.
  const successor = rotation?.successor;
  const successorUnused = successor !== undefined && successor.revokedAt === null && successor.rotatedAt === null;
  return withinGrace && successorUnused ? 'replayable' : 'reused';
}

/**
 * The presented token's row and state, or undefined when the store does not
 * know it. A rotated refresh token's successor is found by deriving it from
 * the presented plaintext and the stored salt, as the rotation did.
 */
export async function readTokenState(tokens: TokenStore, presented: string, now: number, graceSeconds: number): Promise<{ token: Token; state: TokenState } | undefined> {
  const token = await tokens.find(sha256(presented));
  if (!token) return undefined;
  // Only refresh tokens are rotated, and every one is stored with a salt (issue-tokens.ts).
  const successor = token.rotatedAt === null ? undefined : await tokens.find(sha256(successorSecrets(presented, token.salt!).refreshToken));
  return { token, state: tokenState(token, now, { graceSeconds, successor }) };
}
