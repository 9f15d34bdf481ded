import { OTHER_RECORDS } from '../activity/events.ts';
import { writeEntry } from '../activity/record.ts';
import type { FastifyRequest } from 'fastify';
import type { Deps } from '../deps.ts';
import { PlatformError } from './errors.ts';
import type { User } from '../store/types.ts';
import { hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, verifyPassword } from '../users/passwords.ts';
import { changePassword } from '../users/password-change.ts';
import { claimCheck, passwordRight, passwordWrong, tooManyFailuresError } from '../users/sign-in-throttle.ts';
import { AREAS } from './areas.ts';
import { listAll } from './list-all.ts';
import type { RecordService } from './records.ts';

export interface AccountPatch {
  name?: string;
  current_password?: string;
  new_password?: string;
}

export interface StudentRow {
  id: string;
  name: unknown;
  status: unknown;
}

/** What the account shows of the user: never the password hash. */
const profile = (user: User) => ({
  id: user.id,
  email: user.email,
  name: user.name,
  role: user.role,
  created_at: new Date(user.createdAt).toISOString(),
  updated_at: new Date(user.updatedAt).toISOString(),
});

function checkedName(raw: string): string {
  const name = raw.trim();
  if (!name) throw new PlatformError('invalid_request', 'name must not be blank');
  return name;
}

/**
 * The signed-in user's own account, and their student record when one is
 * linked to the account (user_id) or has the same email. Only that student's
 * enrollments, subscriptions and orders are read; never a password hash, never
 * the school's private notes on the student.
 */
export class AccountService {
  constructor(
    private readonly deps: Deps,
    private readonly records: RecordService,
  ) {}

  async read(userId: string) {
    const user = await this.user(userId);
    return { ...profile(user), student: await this.student(user) };
  }

  /**
   * Changes the name and/or the password. A new password needs the current
   * one; a wrong current password is 400 invalid_request (a bad field of this
   * request, not a bad token: 401 would tell the client to drop its token).
   * Everything is checked before anything is written. A new password ends
   * every session and revokes every token of the user, the calling token
   * included; the answer then carries sessions_ended and tokens_revoked.
   */
  /**
   * The account and counts of its student record's enrollments, subscriptions
   * and orders, for a caller that pages through each of them on its own.
   */
  async summary(userId: string) {
    const user = await this.user(userId);
    const row = await this.studentRow(user);
    const count = (table: string, studentId: string) => this.deps.store.records.count(table, [['student_id', '=', studentId]]);
    return {
      ...profile(user),
      student: row && {
        id: row.id,
        name: row.name,
        status: row.status,
        enrollments: await count('enrollments', row.id),
        subscriptions: await count('subscriptions', row.id),
        orders: await count('orders', row.id),
      },
    };
  }

  /** The student record of the account (see studentRow), or null: only its id, name and status. */
  async studentOf(userId: string): Promise<StudentRow | null> {
    return this.studentRow(await this.user(userId));
  }

  /** Changes the name only; the same check as update's, without a password in play. */
  async rename(userId: string, name: string): Promise<void> {
    const user = await this.user(userId);
    await this.deps.store.users.setName(user.id, checkedName(name), this.deps.now(), await writeEntry(this.deps, 'record.updated', OTHER_RECORDS.account, user.id, ['name']));
  }

  async update(userId: string, patch: AccountPatch, request: FastifyRequest) {
    const user = await this.user(userId);
    const name = patch.name === undefined ? undefined : checkedName(patch.name);
    if (name === undefined && patch.new_password === undefined) throw new PlatformError('invalid_request', 'Send name, or current_password with new_password');
    let newHash: string | undefined;
    if (patch.new_password !== undefined) {
      if (patch.current_password === undefined) throw new PlatformError('invalid_request', 'new_password needs current_password');
      if (patch.new_password.length < MIN_PASSWORD_LENGTH || patch.new_password.length > MAX_PASSWORD_LENGTH) {
        throw new PlatformError('invalid_request', `new_password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`);
      }
      // The same per-account delay as the sign-in form (sign-in-throttle.ts): a token with
      // account:write must not become a way to guess the password at full speed.
      const claimed = await claimCheck(this.deps, user.email);
      if (claimed.refusedFor) throw tooManyFailuresError(claimed.refusedFor);
      if (!(await verifyPassword(user.passwordHash, patch.current_password))) {
        const wait = await passwordWrong(this.deps, request, user.email, 'current_password_failed');
        throw wait ? tooManyFailuresError(wait) : new PlatformError('invalid_request', 'current_password is not correct');
      }
      await passwordRight(this.deps, user.email);
      newHash = await hashPassword(patch.new_password);
    } else if (patch.current_password !== undefined) {
      throw new PlatformError('invalid_request', 'current_password is only used with new_password');
    }
    const now = this.deps.now();
    if (name !== undefined) await this.deps.store.users.setName(user.id, name, now, await writeEntry(this.deps, 'record.updated', OTHER_RECORDS.account, user.id, ['name']));
    if (!newHash) return this.read(user.id);
    // Every session and token of the user ends, the calling token included: whoever holds
    // the old password may have made any of them. The client signs the user in again.
    const changed = await changePassword(this.deps.store, user.id, newHash, now, undefined, await writeEntry(this.deps, 'password.changed', OTHER_RECORDS.account, user.id));
    return { ...(await this.read(user.id)), sessions_ended: changed.sessionsEnded, tokens_revoked: changed.tokensRevoked };
  }

  private async user(userId: string): Promise<User> {
    const user = await this.deps.store.users.findById(userId);
    if (!user) throw new PlatformError('not_found', 'The account of this token no longer exists');
    return user;
  }

  /** The student record linked to the account (user_id), else the one with its email; never its notes. */
  private async studentRow(user: User): Promise<StudentRow | null> {
    const linked = await this.deps.store.records.select('students', ['id', 'name', 'status'], [['user_id', '=', user.id]]);
    const [row] = linked.length ? linked : await this.deps.store.records.select('students', ['id', 'name', 'status'], [['email', '=', user.email.toLowerCase()]]);
    return row ? { id: String(row.id), name: row.name, status: row.status } : null;
  }

  private async student(user: User) {
    const row = await this.studentRow(user);
    if (!row) return null;
    const studentId = row.id;
    return {
      id: studentId,
      name: row.name,
      status: row.status,
      enrollments: await listAll(this.records, AREAS.enrollments, 'full', { student_id: studentId }),
      subscriptions: await listAll(this.records, AREAS.subscriptions, 'full', { student_id: studentId }),
      orders: await listAll(this.records, AREAS.orders, 'full', { student_id: studentId }),
    };
  }
}
