import type { ActivityEntry } from './activity.ts';

/** A user's consent to a client: the connected-apps list. */
export interface Grant {
  userId: string;
  clientId: string;
  scope: string;
  createdAt: number;
  updatedAt: number;
  /** When the consent ends (refresh is refused after it); null: until the person disconnects the app. */
  expiresAt: number | null;
}

export interface GrantStore {
  /** Contract: creates or replaces the user's grant to the client. Here `activity`, as in setEnd and delete, is appended in the same transaction (when there was a grant to change). */
  upsert(grant: Grant, activity?: ActivityEntry): Promise<void>;
  find(userId: string, clientId: string): Promise<Grant | undefined>;
  /** Contract: sets when an existing grant ends (extended or ended by the person); false if there is no grant. */
  setEnd(userId: string, clientId: string, expiresAt: number | null, now: number, activity?: ActivityEntry): Promise<boolean>;
  listForUser(userId: string): Promise<Grant[]>;
  /**
   * Contract: deletes the grant and, in the same transaction, every authorization
   * code and device authorization of that user at that client, so neither
   * outlives the consent it came from; false if there was no grant. The caller revokes the tokens after.
   */
  delete(userId: string, clientId: string, activity?: ActivityEntry): Promise<boolean>;
}
