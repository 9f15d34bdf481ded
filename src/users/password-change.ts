import type { ActivityEntry, Store } from '../store/types.ts';

export interface PasswordChanged {
  /** Browser sign-in sessions ended. */
  sessionsEnded: number;
  /** Access and refresh tokens revoked, at every client. */
  tokensRevoked: number;
}

/**
 * Stores a new password hash and ends everything the old password opened:
 * every browser session of the user (but `keepSessionHash`, when given) and
 * every live access and refresh token at every client. A password is
 * changed because the old one may be known to someone else; sessions and
 * tokens obtained with it would otherwise outlive the change by up to
 * SESSION_TTL_SECONDS and REFRESH_TOKEN_TTL_SECONDS. Shared by
 * PATCH /api/v1/account and `lyceum users passwd`; `activity` is the
 * change's entry in the activity log, committed with the new hash.
 */
export async function changePassword(store: Store, userId: string, passwordHash: string, now: number, keepSessionHash?: string, activity?: ActivityEntry): Promise<PasswordChanged> {
  await store.users.setPassword(userId, passwordHash, now, activity);
  const sessionsEnded = await store.sessions.deleteForUser(userId, keepSessionHash);
  const tokensRevoked = await store.tokens.revokeForUser(userId, now);
  return { sessionsEnded, tokensRevoked };
}
