/**
 * One line of the activity log, as stored (src/activity/events.ts says what
 * `event`, `via` and `clientKind` may hold). It names things and never holds
 * their values: the fields a write changed are listed by name, an email
 * typed at a failed sign-in is not kept, no secret is ever part of it.
 */
export interface ActivityEntry {
  /** `act_` and 12 random bytes. */
  id: string;
  at: number;
  event: string;
  /** The person acted for (or who signed in); null when nobody is known (a failed sign-in of an unknown address). */
  userId: string | null;
  /** The app that acted; null for what a person did in the browser. Its name and kind as they were then: a deleted app is still named. */
  clientId: string | null;
  clientName: string | null;
  clientKind: string | null;
  via: string;
  /** The API operation (its operationId), the MCP tool, or the page's action. */
  operation: string;
  recordType: string | null;
  recordId: string | null;
  /** Names of the fields a write set; empty for a deletion and for security events. */
  fields: string[];
}

/** Which entries a reader asks for; every filter given must hold. */
export interface ActivityQuery {
  userId?: string;
  clientId?: string;
  recordId?: string;
  recordType?: string;
  operation?: string;
  event?: string;
  /** From this time (inclusive) ... */
  since?: number;
  /** ... up to this time (exclusive). */
  until?: number;
  limit: number;
  /** Continue after this (at, id) pair, going back in time. */
  before?: [number, string];
}

/**
 * The activity log. Entries of a write are appended by the write's own store
 * method, in its transaction (the `activity` argument of RecordStore,
 * ProgressStore, SettingsStore, FileStore, WebhookStore and UserStore
 * writes): committed with the change or not at all. Nothing edits or
 * deletes an entry but the retention purge.
 */
export interface ActivityStore {
  /** Appends an entry on its own: a security event that writes nothing else. */
  append(entry: ActivityEntry): Promise<void>;
  /** Newest first; `next` continues the list when more entries match. */
  list(query: ActivityQuery): Promise<{ entries: ActivityEntry[]; next?: [number, string] }>;
  /** Deletes entries older than `before`, in batches; returns how many. */
  purgeBefore(before: number): Promise<number>;
}
