import type { Kysely } from 'kysely';
import { recount } from '../kysely/analytics.ts';
import type { Database } from '../kysely/schema.ts';

/**
 * The analytics counters (src/store/analytics-rule.ts): a report over any
 * range reads a few rows per period instead of every enrollment, completion
 * and order in it. `analytics_counters` holds a metric's total per period (a
 * day, an ISO week, a month, or 'all') and dimension (an order's currency);
 * `analytics_active` holds how many rows make a student active in a period,
 * so the number of students active in part of a period can be counted too.
 * Both are filled from the rows already stored, so an upgraded school's
 * report is right from the first request. The rule that fills them is the
 * store's current one: were it to change, a later migration counts again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('analytics_counters')
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('metric', 'text', (c) => c.notNull())
    .addColumn('dimension', 'text', (c) => c.notNull())
    .addColumn('value', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('analytics_counters_pkey', ['period', 'metric', 'dimension'])
    .execute();
  await db.schema
    .createTable('analytics_active')
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('student_id', 'text', (c) => c.notNull())
    .addColumn('n', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('analytics_active_pkey', ['period', 'student_id'])
    .execute();
  // No lock needed: the tables are new, and instances write to them only once migrated.
  await recount(db as Kysely<Database>);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('analytics_active').execute();
  await db.schema.dropTable('analytics_counters').execute();
}
