import { PostgresAdapter, type Kysely } from 'kysely';

/** Whether a migration runs on PostgreSQL (its SQL differs from SQLite's: triggers, functions). */
export const onPostgres = (db: Kysely<unknown>): boolean => db.getExecutor().adapter instanceof PostgresAdapter;
