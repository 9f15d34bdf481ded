import { sql, type Kysely } from 'kysely';
import { ACTIVE_STUDENTS, COUNTED_TABLES, CounterChange } from '../analytics-rule.ts';
import type { AnalyticsStore, CounterRow } from '../types.ts';
import type { Database } from './schema.ts';

/** Rows per statement: far under either engine's limit on bound values. */
const CHUNK = 500;
/** Rows the rebuild reads at a time. */
const REBUILD_PAGE = 2000;

function chunks<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/**
 * Applies a change to the counters, inside the caller's transaction. The
 * (period, student) counts go first: a student's count rising from 0 or
 * falling to 0 moves `active_students` of that period, and a count at 0 is
 * removed. Counters are added to with an upsert, so instances writing at
 * once on PostgreSQL each add their own change under the row's lock.
 */
export async function applyCounterChange(trx: Kysely<Database>, change: CounterChange): Promise<void> {
  if (change.empty) return;
  const moved = new Map<string, number>();
  for (const part of chunks(change.activeRows())) {
    const delta = new Map(part.map(([period, student, n]) => [`${period}\u0000${student}`, n]));
    const after = await trx
      .insertInto('analytics_active')
      .values(part.map(([period, student_id, n]) => ({ period, student_id, n })))
      .onConflict((oc) => oc.columns(['period', 'student_id']).doUpdateSet((eb) => ({ n: eb('analytics_active.n', '+', eb.ref('excluded.n')) })))
      .returning(['period', 'student_id', 'n'])
      .execute();
    for (const row of after) {
      const now = Number(row.n);
      const before = now - (delta.get(`${row.period}\u0000${row.student_id}`) ?? 0);
      const step = before <= 0 && now > 0 ? 1 : before > 0 && now <= 0 ? -1 : 0;
      if (step) moved.set(row.period, (moved.get(row.period) ?? 0) + step);
      if (now <= 0) await trx.deleteFrom('analytics_active').where('period', '=', row.period).where('student_id', '=', row.student_id).execute();
    }
  }
  const rows = [...change.countRows(), ...[...moved].filter(([, n]) => n !== 0).map(([period, n]) => [period, ACTIVE_STUDENTS, '', n] as const)].sort((a, b) =>
    `${a[0]}\u0000${a[1]}\u0000${a[2]}` < `${b[0]}\u0000${b[1]}\u0000${b[2]}` ? -1 : 1,
  );
  for (const part of chunks(rows)) {
    await trx
      .insertInto('analytics_counters')
      .values(part.map(([period, metric, dimension, value]) => ({ period, metric, dimension, value })))
      .onConflict((oc) => oc.columns(['period', 'metric', 'dimension']).doUpdateSet((eb) => ({ value: eb('analytics_counters.value', '+', eb.ref('excluded.value')) })))
      .execute();
  }
}

/** Every counted row of the school, replayed through the rule from empty counters, in the caller's transaction. */
export async function recount(db: Kysely<Database>): Promise<number> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the platform tables are not in the typed schema
  const any = db as unknown as Kysely<any>;
  await db.deleteFrom('analytics_active').execute();
  await db.deleteFrom('analytics_counters').execute();
  let read = 0;
  for (const [table, key] of Object.entries(COUNTED_TABLES)) {
    let after: unknown[] | undefined;
    for (;;) {
      let q = any.selectFrom(table).selectAll().limit(REBUILD_PAGE);
      for (const column of key) q = q.orderBy(column);
      if (after) {
        const last = after;
        q = q.where((eb) => (key.length === 1 ? eb(key[0]!, '>', last[0]) : eb(eb.refTuple(key[0]!, key[1]!), '>', eb.tuple(last[0], last[1]))));
      }
      const rows = (await q.execute()) as Record<string, unknown>[];
      if (rows.length === 0) break;
      const change = new CounterChange();
      for (const row of rows) change.row(table, undefined, row);
      await applyCounterChange(db, change);
      read += rows.length;
      const tail = rows[rows.length - 1]!;
      after = key.map((column) => tail[column]);
    }
  }
  return read;
}

/**
 * The counters from scratch. On PostgreSQL the counter tables are locked
 * first: a write that commits after the lock waits for it to add its change,
 * and one that committed before is read by the recount, so none is counted
 * twice or lost. SQLite has one writer at a time anyway.
 */
export async function rebuildCounters(db: Kysely<Database>, kind: 'sqlite' | 'postgres'): Promise<number> {
  if (kind === 'postgres') await sql`lock table analytics_counters, analytics_active in exclusive mode`.execute(db);
  return recount(db);
}

export function kyselyAnalyticsStore(db: Kysely<Database>, kind: 'sqlite' | 'postgres'): AnalyticsStore {
  return {
    async counters(periods) {
      if (periods.length === 0) return [];
      const rows = await db.selectFrom('analytics_counters').select(['period', 'metric', 'dimension', 'value']).where('period', 'in', periods).execute();
      return rows.map((r): CounterRow => ({ ...r, value: Number(r.value) }));
    },
    async activeStudents(periods) {
      if (periods.length === 0) return 0;
      const row = await db
        .selectFrom('analytics_active')
        .select((eb) => eb.fn.count('student_id').distinct().as('n'))
        .where('period', 'in', periods)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
    async activeBetween(first, last) {
      // Day labels (YYYY-MM-DD) sort among themselves; no week (YYYY-Www) or month (YYYY-MM) label falls between two of them.
      const row = await db.selectFrom('analytics_active').select('period').where('period', '>=', first).where('period', '<=', last).limit(1).executeTakeFirst();
      return row !== undefined;
    },
    async rebuild() {
      return db.transaction().execute((trx) => rebuildCounters(trx, kind));
    },
  };
}
