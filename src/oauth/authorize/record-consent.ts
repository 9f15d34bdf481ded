import { activityEntry } from '../../activity/record.ts';
import type { Deps } from '../../deps.ts';
import type { ConsentChoice } from './next-step.ts';

/**
 * Records a person's consent to a client (the connected-apps list): the
 * granted scope, and when it ends. It keeps when the consent was first
 * given; without a new choice (a covering grant skipped the page) it keeps
 * its end too. The code flow and the device page both record it here.
 *
 * A choice made on the page is logged with the grant: `consent.narrowed`
 * when the person left out some of the `offered` scopes, `consent.given`
 * otherwise. A covering grant reused without the page logs nothing.
 */
export async function recordConsent(
  deps: Pick<Deps, 'store' | 'now'>,
  grant: { userId: string; clientId: string; scope: string; now: number },
  choice?: ConsentChoice & { offered: readonly string[]; operation: string },
): Promise<void> {
  const store = deps.store;
  const previous = await store.grants.find(grant.userId, grant.clientId);
  const narrowed = choice !== undefined && choice.offered.some((s) => !choice.scopes.includes(s as never));
  const entry = choice
    ? await activityEntry(deps, {
        event: narrowed ? 'consent.narrowed' : 'consent.given',
        userId: grant.userId,
        clientId: grant.clientId,
        via: 'web',
        operation: choice.operation,
        fields: choice.scopes,
      })
    : undefined;
  await store.grants.upsert(
    {
      userId: grant.userId,
      clientId: grant.clientId,
      scope: grant.scope,
      createdAt: previous?.createdAt ?? grant.now,
      updatedAt: grant.now,
      expiresAt: choice ? choice.expiresAt : (previous?.expiresAt ?? null),
    },
    entry,
  );
}
