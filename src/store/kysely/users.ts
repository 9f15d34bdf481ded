import { writing } from './activity.ts';
import type { Kysely, Selectable } from 'kysely';
import { isRole } from '../../access/roles.ts';
import { DuplicateError, type User, type UserStore } from '../types.ts';
import type { Database, UsersTable } from './schema.ts';
import { isUniqueViolation } from './unique-violation.ts';
import type { KeyLookup } from './key-lookup.ts';

function toUser(row: Selectable<UsersTable>): User {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: isRole(row.role) ? row.role : 'student',
    passwordHash: row.password_hash,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

export function kyselyUserStore(db: Kysely<Database>, lookups: KeyLookup): UserStore {
  const findById = lookups((id: string) => db.selectFrom('users').selectAll().where('id', '=', id));
  return {
    async create(user) {
      try {
        await db
          .insertInto('users')
          .values({
            id: user.id,
            email: user.email.toLowerCase(),
            name: user.name,
            role: user.role,
            password_hash: user.passwordHash,
            created_at: user.createdAt,
            updated_at: user.updatedAt,
          })
          .execute();
      } catch (err) {
        if (isUniqueViolation(err)) throw new DuplicateError(`a user with email ${user.email} already exists`);
        throw err;
      }
    },
    async findByEmail(email) {
      const row = await db.selectFrom('users').selectAll().where('email', '=', email.toLowerCase()).executeTakeFirst();
      return row && toUser(row);
    },
    async findById(id) {
      const row = await findById(id);
      return row && toUser(row);
    },
    async any() {
      return (await db.selectFrom('users').select('id').limit(1).executeTakeFirst()) !== undefined;
    },
    async list() {
      const rows = await db.selectFrom('users').selectAll().orderBy('created_at').orderBy('id').execute();
      return rows.map(toUser);
    },
    async setPassword(id, passwordHash, now, activity) {
      return writing(
        db,
        activity,
        async (trx) => Number((await trx.updateTable('users').set({ password_hash: passwordHash, updated_at: now }).where('id', '=', id).executeTakeFirst()).numUpdatedRows) > 0,
        (changed) => changed,
      );
    },
    async setName(id, name, now, activity) {
      return writing(
        db,
        activity,
        async (trx) => Number((await trx.updateTable('users').set({ name, updated_at: now }).where('id', '=', id).executeTakeFirst()).numUpdatedRows) > 0,
        (changed) => changed,
      );
    },
  };
}
