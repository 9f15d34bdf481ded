import type { Store } from '../../store/types.ts';
import type { ConsentChoice } from './next-step.ts';

/**
 * Records a person's consent to a client (the connected-apps list): the
 * granted scope, and when it ends. It keeps when the consent was first
 * given; without a new choice (a covering grant skipped the page) it keeps
 * its end too. The code flow and the device page both record it here.
 */
export async function recordConsent(store: Pick<Store, 'grants'>, grant: { userId: string; clientId: string; scope: string; now: number }, choice?: ConsentChoice): Promise<void> {
  const previous = await store.grants.find(grant.userId, grant.clientId);
  await store.grants.upsert({
    userId: grant.userId,
    clientId: grant.clientId,
    scope: grant.scope,
    createdAt: previous?.createdAt ?? grant.now,
    updatedAt: grant.now,
    expiresAt: choice ? choice.expiresAt : (previous?.expiresAt ?? null),
  });
}
