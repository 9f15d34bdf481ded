import type { ActivityEntry } from './activity.ts';
export interface SettingsStore {
  get(name: string): Promise<Record<string, unknown> | undefined>;
  /** `activity` is appended in the same transaction. */
  put(name: string, value: Record<string, unknown>, now: number, activity?: ActivityEntry): Promise<void>;
}

export interface StoredFile {
  id: string;
  name: string;
  contentType: string;
  size: number;
  sha256: string;
  uploadedBy: string | null;
  createdAt: number;
}

/** What insertWithinQuota did: stored, or refused with the bytes already used. */
export type QuotaInsertResult = { stored: true } | { stored: false; usedBytes: number };

export interface FileStore {
  insert(file: StoredFile): Promise<void>;
  /**
   * Contract: inserts the file only if the sizes of all stored files plus its
   * own stay within `quotaBytes`. Racing callers (in one process or several on
   * one database) never together pass the quota: the check and the insert are
   * one atomic step.
   */
  insertWithinQuota(file: StoredFile, quotaBytes: number, activity?: ActivityEntry): Promise<QuotaInsertResult>;
  /** Total size in bytes of the stored files. */
  usedBytes(): Promise<number>;
  find(id: string): Promise<StoredFile | undefined>;
  list(limit: number): Promise<StoredFile[]>;
  delete(id: string, activity?: ActivityEntry): Promise<boolean>;
}
