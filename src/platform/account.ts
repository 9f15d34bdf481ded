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
    return {
      id: user.id,
      email: user.email,
      name: user.name,
      role: user.role,
      created_at: new Date(user.createdAt).toISOString(),
      updated_at: new Date(user.updatedAt).toISOString(),
      student: await this.student(user),
    };
  }

  /**
   * Changes the name and/or the password. A new password needs the current
   * one; a wrong current password is 400 invalid_request (a bad field of this
   * request, not a bad token: 401 would tell the client to drop its token).
   * Everything is checked before anything is written. A new password ends
   * every session and revokes every token of the user, the calling token
   * included; the answer then carries sessions_ended and tokens_revoked.
   */
  async update(userId: string, patch: AccountPatch, request: FastifyRequest) {
    const user = await this.user(userId);
    const name = patch.name?.trim();
    if (patch.name !== undefined && !name) throw new PlatformError('invalid_request', 'name must not be blank');
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
        const wait = passwordWrong(request, user.email, claimed, 'current_password_failed');
        throw wait ? tooManyFailuresError(wait) : new PlatformError('invalid_request', 'current_password is not correct');
      }
      await passwordRight(this.deps, user.email);
      newHash = await hashPassword(patch.new_password);
    } else if (patch.current_password !== undefined) {
      throw new PlatformError('invalid_request', 'current_password is only used with new_password');
    }
    const now = this.deps.now();
    if (name !== undefined) await this.deps.store.users.setName(user.id, name, now);
    if (!newHash) return this.read(user.id);
    // Every session and token of the user ends, the calling token included: whoever holds
    // the old password may have made any of them. The client signs the user in again.
    const changed = await changePassword(this.deps.store, user.id, newHash, now);
    return { ...(await this.read(user.id)), sessions_ended: changed.sessionsEnded, tokens_revoked: changed.tokensRevoked };
  }

  private async user(userId: string): Promise<User> {
    const user = await this.deps.store.users.findById(userId);
    if (!user) throw new PlatformError('not_found', 'The account of this token no longer exists');
    return user;
  }

  private async student(user: User) {
    const linked = await this.deps.store.records.select('students', ['id', 'name', 'status'], [['user_id', '=', user.id]]);
    const [row] = linked.length ? linked : await this.deps.store.records.select('students', ['id', 'name', 'status'], [['email', '=', user.email.toLowerCase()]]);
    if (!row) return null;
    const studentId = String(row.id);
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
