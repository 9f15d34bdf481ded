import type { Kysely } from 'kysely';

/**
 * Lesson progress and access that ends.
 *
 * - `enrollments.access_expires_at` (epoch ms; null: access never ends).
 * - `lesson_completions`: one row per enrollment and lesson the student has
 *   completed. The primary key makes a repeated completion one row, and the
 *   foreign keys remove a completion with its enrollment or its lesson
 *   (SQLite runs with foreign_keys on). `course_id` is the lesson's course
 *   when it was completed, so that a course's completions are counted
 *   without reading its lessons; `completed_at` is indexed for the analytics
 *   report's periods.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('enrollments').addColumn('access_expires_at', 'bigint').execute();
  await db.schema
    .createTable('lesson_completions')
    .addColumn('enrollment_id', 'text', (c) => c.notNull().references('enrollments.id').onDelete('cascade'))
    .addColumn('lesson_id', 'text', (c) => c.notNull().references('lessons.id').onDelete('cascade'))
    .addColumn('course_id', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('lesson_completions_pkey', ['enrollment_id', 'lesson_id'])
    .execute();
  await db.schema.createIndex('lesson_completions_lesson_id').on('lesson_completions').column('lesson_id').execute();
  await db.schema.createIndex('lesson_completions_completed_at').on('lesson_completions').column('completed_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('lesson_completions').execute();
  await db.schema.alterTable('enrollments').dropColumn('access_expires_at').execute();
}
