import { SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, type Dialect, type Driver, type Kysely } from 'kysely';

/** Kysely's SQLite dialect on a driver of Lyceum's own (the busy-retrying one, the maintenance thread's). */
export function sqliteDialect(createDriver: () => Driver): Dialect {
  return {
    createAdapter: () => new SqliteAdapter(),
    createDriver,
    createIntrospector: (db: Kysely<unknown>) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  };
}
