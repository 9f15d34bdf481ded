export interface Session {
  hash: string;
  userId: string;
  authTime: number;
  expiresAt: number;
}

export interface SessionStore {
  create(session: Session): Promise<void>;
  /** Contract: returns the session only while now < expiresAt. */
  findLive(hash: string, now: number): Promise<Session | undefined>;
  delete(hash: string): Promise<void>;
  /** Deletes every session of the user except the one hashed `exceptHash` (a password change); returns how many. */
  deleteForUser(userId: string, exceptHash?: string): Promise<number>;
  purgeExpired(before: number): Promise<number>;
}
