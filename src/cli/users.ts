import { activityEntry } from '../activity/record.ts';
import { OTHER_RECORDS } from '../activity/events.ts';
import { randomUUID } from 'node:crypto';
import { isRole, ROLES } from '../access/roles.ts';
import type { Store } from '../store/types.ts';
import { isEmailAddress } from '../util/email-address.ts';
import { changePassword } from '../users/password-change.ts';
import { hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../users/passwords.ts';
import { parseFlags, UsageError } from './args.ts';

export interface NewUser {
  email: string;
  password: string;
  name?: string;
  role?: string;
}

/** Validates and creates a user; shared by the CLI and first-start setup. */
export async function createUser(store: Store, input: NewUser, now = Date.now()) {
  const email = input.email.trim().toLowerCase();
  if (!isEmailAddress(email)) throw new UsageError(`--email: "${input.email}" is not an email address`);
  if (input.password.length < MIN_PASSWORD_LENGTH || input.password.length > MAX_PASSWORD_LENGTH) {
    throw new UsageError(`--password: must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`);
  }
  const role = input.role ?? 'student';
  if (!isRole(role)) throw new UsageError(`--role: must be one of ${ROLES.join(', ')}`);
  const user = {
    id: randomUUID(),
    email,
    name: input.name?.trim() || email.split('@')[0]!,
    role,
    passwordHash: await hashPassword(input.password),
    createdAt: now,
    updatedAt: now,
  };
  await store.users.create(user);
  return user;
}

export async function usersCommand(store: Store, args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  if (sub === 'add') {
    const { values } = parseFlags(rest, {
      email: { type: 'string' },
      password: { type: 'string' },
      name: { type: 'string' },
      role: { type: 'string' },
    });
    if (!values.email) throw new UsageError('users add: --email is required');
    if (!values.password) throw new UsageError('users add: --password is required');
    const user = await createUser(store, {
      email: values.email,
      password: values.password,
      ...(values.name ? { name: values.name } : {}),
      ...(values.role ? { role: values.role } : {}),
    });
    console.log(`added ${user.role} ${user.email} (id ${user.id})`);
    return;
  }
  if (sub === 'passwd') {
    const { values } = parseFlags(rest, { email: { type: 'string' }, password: { type: 'string' } });
    if (!values.email || !values.password) throw new UsageError('users passwd: --email and --password are required');
    if (values.password.length < MIN_PASSWORD_LENGTH || values.password.length > MAX_PASSWORD_LENGTH) {
      throw new UsageError(`--password: must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`);
    }
    const user = await store.users.findByEmail(values.email);
    if (!user) throw new UsageError(`no user with email ${values.email}`);
    const now = Date.now();
    // A security event wherever it happens: the school's log says the password was changed on the server's machine.
    const entry = await activityEntry(
      { store, now: () => now },
      { event: 'password.changed', userId: user.id, via: 'cli', operation: 'users passwd', recordType: OTHER_RECORDS.account, recordId: user.id },
    );
    const changed = await changePassword(store, user.id, await hashPassword(values.password), now, undefined, entry);
    console.log(
      `password changed for ${user.email}; signed out everywhere: ${changed.sessionsEnded} browser session${changed.sessionsEnded === 1 ? '' : 's'} ended, ${changed.tokensRevoked} token${changed.tokensRevoked === 1 ? '' : 's'} revoked`,
    );
    return;
  }
  if (sub === 'list') {
    const users = await store.users.list();
    if (users.length === 0) return console.log('no users');
    for (const u of users) console.log(`${u.id}  ${u.role.padEnd(8)}  ${u.email}  ${u.name}`);
    return;
  }
  throw new UsageError('usage: lyceum users add --email E --password P [--name N] [--role owner|admin|lecturer|student] | lyceum users list');
}
