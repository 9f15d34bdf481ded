import type { Deps } from '../deps.ts';
import { isClientIdUrl } from '../util/client-id-url.ts';
import { currentlyActing } from './acting.ts';
import { randomBytes } from 'node:crypto';
import type { ActivityEntry } from '../store/types.ts';
import type { ActivityChannel, ActivityEvent, ClientKind } from './events.ts';

/** The app's name and who vouches for it, as they are now: entries keep them, so a deleted app is still named. */
async function describeClient(deps: Pick<Deps, 'store'>, clientId: string): Promise<{ clientName: string | null; clientKind: ClientKind }> {
  const client = await deps.store.clients.find(clientId);
  const clientKind: ClientKind = isClientIdUrl(clientId) ? 'metadata_document' : client?.registration === 'operator' ? 'school' : 'self_registered';
  return { clientName: client?.metadata.client_name ?? null, clientKind };
}

/** An entry's id: `act_` and 12 random bytes. */
const newActivityId = (): string => `act_${randomBytes(12).toString('base64url')}`;

export interface ActivityFacts {
  event: ActivityEvent;
  userId: string | null;
  clientId?: string | null;
  via: ActivityChannel;
  operation: string;
  recordType?: string;
  recordId?: string;
  fields?: readonly string[];
}

/** A complete entry for what happened now. */
export async function activityEntry(deps: Pick<Deps, 'store' | 'now'>, facts: ActivityFacts): Promise<ActivityEntry> {
  const clientId = facts.clientId ?? null;
  return {
    id: newActivityId(),
    at: deps.now(),
    event: facts.event,
    userId: facts.userId,
    clientId,
    ...(clientId ? await describeClient(deps, clientId) : { clientName: null, clientKind: null }),
    via: facts.via,
    operation: facts.operation,
    recordType: facts.recordType ?? null,
    recordId: facts.recordId ?? null,
    fields: [...(facts.fields ?? [])],
  };
}

/**
 * The entry for a write the acting app (acting.ts) is about to make, for the
 * store to commit in the write's own transaction; undefined when no app is
 * acting (the CLI, the demo seed, a background job), which logs nothing.
 */
export async function writeEntry(deps: Deps, event: ActivityEvent, recordType: string, recordId: string, fields: readonly string[] = []): Promise<ActivityEntry | undefined> {
  const acting = currentlyActing();
  if (!acting) return undefined;
  return activityEntry(deps, { event, userId: acting.userId, clientId: acting.clientId, via: acting.via, operation: acting.operation, recordType, recordId, fields });
}

/** Records a security event on its own (a sign-in, a revocation): nothing else is written with it. */
export async function logActivity(deps: Deps, facts: ActivityFacts): Promise<void> {
  await deps.store.activity.append(await activityEntry(deps, facts));
}
