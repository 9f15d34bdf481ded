import type { ActivityEntry } from './activity.ts';
import type { Role } from '../../access/roles.ts';

export interface User {
  id: string;
  email: string;
  name: string;
  role: Role;
  passwordHash: string;
  createdAt: number;
  updatedAt: number;
}

export interface UserStore {
  /** Contract: throws DuplicateError when the (lower-cased) email is taken. */
  create(user: User): Promise<void>;
  findByEmail(email: string): Promise<User | undefined>;
  findById(id: string): Promise<User | undefined>;
  list(): Promise<User[]>;
  /** Whether there is a user at all: `serve` asks at every start, so it reads one row, whatever the count. */
  any(): Promise<boolean>;
  /** Contract: returns false when no such user exists. `activity`, as every write's, is appended in the same transaction when it changed something. */
  setPassword(id: string, passwordHash: string, now: number, activity?: ActivityEntry): Promise<boolean>;
  /** Contract: replaces the display name and updatedAt; returns false when no such user exists. */
  setName(id: string, name: string, now: number, activity?: ActivityEntry): Promise<boolean>;
}
