import type { Kysely } from 'kysely';

type Column = [name: string, type: 'text' | 'integer' | 'bigint'];
interface Table {
  table: string;
  columns: Column[];
  unique: string[][];
  indexes: string[];
}

/**
 * The platform's record tables, frozen as they were at this migration (new
 * fields go in a new migration). Every table also has id, created_at and
 * updated_at. JSON values are text; booleans are 0/1; times are epoch ms.
 */
const TABLES: Table[] = [
  {
    table: 'courses',
    columns: [
      ['title', 'text'],
      ['slug', 'text'],
      ['summary', 'text'],
      ['description', 'text'],
      ['level', 'text'],
      ['language', 'text'],
      ['price_cents', 'integer'],
      ['lecturer_ids', 'text'],
      ['status', 'text'],
    ],
    unique: [['slug']],
    indexes: ['level', 'language', 'status'],
  },
  {
    table: 'sections',
    columns: [
      ['course_id', 'text'],
      ['title', 'text'],
      ['position', 'integer'],
    ],
    unique: [],
    indexes: ['course_id'],
  },
  {
    table: 'lessons',
    columns: [
      ['section_id', 'text'],
      ['course_id', 'text'],
      ['title', 'text'],
      ['kind', 'text'],
      ['duration_minutes', 'integer'],
      ['position', 'integer'],
      ['free_preview', 'integer'],
      ['content', 'text'],
    ],
    unique: [],
    indexes: ['section_id', 'course_id', 'kind'],
  },
  {
    table: 'lecturers',
    columns: [
      ['name', 'text'],
      ['headline', 'text'],
      ['bio', 'text'],
      ['expertise', 'text'],
      ['avatar_url', 'text'],
      ['email', 'text'],
    ],
    unique: [],
    indexes: [],
  },
  {
    table: 'students',
    columns: [
      ['name', 'text'],
      ['email', 'text'],
      ['status', 'text'],
      ['user_id', 'text'],
      ['notes', 'text'],
    ],
    unique: [['email']],
    indexes: ['status'],
  },
  {
    table: 'enrollments',
    columns: [
      ['student_id', 'text'],
      ['course_id', 'text'],
      ['progress_percent', 'integer'],
      ['completed_at', 'bigint'],
    ],
    unique: [['student_id', 'course_id']],
    indexes: ['student_id', 'course_id'],
  },
  {
    table: 'members',
    columns: [
      ['name', 'text'],
      ['email', 'text'],
      ['role', 'text'],
      ['title', 'text'],
    ],
    unique: [['email']],
    indexes: ['role'],
  },
  {
    table: 'membership_plans',
    columns: [
      ['name', 'text'],
      ['description', 'text'],
      ['price_cents', 'integer'],
      ['interval', 'text'],
      ['benefits', 'text'],
      ['status', 'text'],
    ],
    unique: [],
    indexes: ['interval', 'status'],
  },
  {
    table: 'subscriptions',
    columns: [
      ['student_id', 'text'],
      ['plan_id', 'text'],
      ['status', 'text'],
      ['current_period_end', 'bigint'],
      ['cancelled_at', 'bigint'],
    ],
    unique: [],
    indexes: ['student_id', 'plan_id', 'status'],
  },
  {
    table: 'digital_products',
    columns: [
      ['name', 'text'],
      ['description', 'text'],
      ['format', 'text'],
      ['price_cents', 'integer'],
      ['file_id', 'text'],
      ['status', 'text'],
    ],
    unique: [],
    indexes: ['format', 'file_id', 'status'],
  },
  {
    table: 'coupons',
    columns: [
      ['code', 'text'],
      ['percent_off', 'integer'],
      ['amount_off_cents', 'integer'],
      ['valid_until', 'bigint'],
      ['max_redemptions', 'integer'],
      ['times_redeemed', 'integer'],
      ['active', 'integer'],
    ],
    unique: [['code']],
    indexes: ['active'],
  },
  {
    table: 'orders',
    columns: [
      ['student_id', 'text'],
      ['items', 'text'],
      ['total_cents', 'integer'],
      ['currency', 'text'],
      ['coupon_code', 'text'],
      ['status', 'text'],
      ['paid_at', 'bigint'],
    ],
    unique: [],
    indexes: ['student_id', 'status'],
  },
  {
    table: 'events',
    columns: [
      ['title', 'text'],
      ['description', 'text'],
      ['starts_at', 'bigint'],
      ['ends_at', 'bigint'],
      ['location', 'text'],
      ['online_url', 'text'],
      ['capacity', 'integer'],
      ['price_cents', 'integer'],
      ['status', 'text'],
    ],
    unique: [],
    indexes: ['status'],
  },
  {
    table: 'event_attendees',
    columns: [
      ['event_id', 'text'],
      ['student_id', 'text'],
      ['name', 'text'],
      ['email', 'text'],
    ],
    unique: [['event_id', 'email']],
    indexes: ['event_id', 'student_id'],
  },
  {
    table: 'posts',
    columns: [
      ['title', 'text'],
      ['slug', 'text'],
      ['excerpt', 'text'],
      ['body', 'text'],
      ['author_name', 'text'],
      ['published_at', 'bigint'],
      ['status', 'text'],
    ],
    unique: [['slug']],
    indexes: ['status'],
  },
  {
    table: 'comments',
    columns: [
      ['target_type', 'text'],
      ['target_id', 'text'],
      ['author_name', 'text'],
      ['student_id', 'text'],
      ['body', 'text'],
    ],
    unique: [],
    indexes: ['target_type', 'target_id', 'student_id'],
  },
  {
    table: 'forms',
    columns: [
      ['title', 'text'],
      ['description', 'text'],
      ['fields', 'text'],
    ],
    unique: [],
    indexes: [],
  },
  {
    table: 'form_submissions',
    columns: [
      ['form_id', 'text'],
      ['data', 'text'],
    ],
    unique: [],
    indexes: ['form_id'],
  },
  {
    table: 'pages',
    columns: [
      ['title', 'text'],
      ['slug', 'text'],
      ['body', 'text'],
      ['status', 'text'],
    ],
    unique: [['slug']],
    indexes: ['status'],
  },
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const t of TABLES) {
    let create = db.schema
      .createTable(t.table)
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull());
    for (const [name, type] of t.columns) create = create.addColumn(name, type);
    for (const cols of t.unique) create = create.addUniqueConstraint(`${t.table}_${cols.join('_')}_unique`, cols as never);
    await create.execute();
    await db.schema.createIndex(`${t.table}_created_at`).on(t.table).columns(['created_at', 'id']).execute();
    for (const col of t.indexes) await db.schema.createIndex(`${t.table}_${col}`).on(t.table).column(col).execute();
  }
  // The school's settings and appearance: one JSON document each.
  await db.schema
    .createTable('settings')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  // Uploaded files; the bytes live under the data directory, named by id.
  await db.schema
    .createTable('files')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('uploaded_by', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of [...TABLES].reverse()) await db.schema.dropTable(t.table).execute();
  await db.schema.dropTable('settings').execute();
  await db.schema.dropTable('files').execute();
}
