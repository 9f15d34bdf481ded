/** A user's consent to a client: the connected-apps list. */
export interface Grant {
  userId: string;
  clientId: string;
  scope: string;
  createdAt: number;
  updatedAt: number;
}

export interface GrantStore {
  /** Contract: creates or replaces the user's grant to the client. */
  upsert(grant: Grant): Promise<void>;
  find(userId: string, clientId: string): Promise<Grant | undefined>;
  listForUser(userId: string): Promise<Grant[]>;
  /**
   * Contract: deletes the grant and, in the same transaction, every authorization
   * code and device authorization of that user at that client, so neither
   * outlives the consent it came from; false if there was no grant. The caller revokes the tokens after.
   */
  delete(userId: string, clientId: string): Promise<boolean>;
}
