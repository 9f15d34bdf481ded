import type { ActivityEntry } from './activity.ts';
import type { OutboxEvent } from './webhooks.ts';

export type Row = Record<string, unknown>;
export type Condition = [column: string, op: '=' | '>=' | '<' | 'in', value: unknown];

export interface ListQuery {
  where: Condition[];
  /** Case-insensitive substring match on any of these columns. */
  search?: { columns: string[]; text: string };
  /** Ascending by this column, ties broken by id. */
  sort: string;
  limit: number;
  /** Continue after this (sort value, id) pair: keyset pagination, stable under inserts. */
  after?: [unknown, string];
}

/**
 * The platform's record tables (src/platform/areas.ts), reached by table name.
 * Rows are plain column maps: JSON as text, booleans 0/1, times epoch ms.
 */
export interface RecordStore {
  /** Returns up to `limit` rows and, when more exist, the key to continue after. */
  list(table: string, query: ListQuery): Promise<{ rows: Row[]; next?: [unknown, string] }>;
  get(table: string, id: string): Promise<Row | undefined>;
  /**
   * Contract: throws DuplicateError when a unique column is taken. `events`
   * are written to the webhook outbox, and `activity` to the activity log, in
   * the same transaction as the row.
   */
  insert(table: string, row: Row, events?: OutboxEvent[], activity?: ActivityEntry): Promise<void>;
  /**
   * Contract: returns the updated row, or undefined for an unknown id; DuplicateError as insert.
   * `events` is given the row before and after the change and what it returns is written to the
   * webhook outbox in the same transaction as the change, as is `activity` to the activity log
   * (not for an unknown id).
   */
  update(table: string, id: string, patch: Row, events?: (before: Row, after: Row) => OutboxEvent[], activity?: ActivityEntry): Promise<Row | undefined>;
  /** Contract: false for an unknown id; `activity` is appended in the deletion's transaction when a row went. */
  delete(table: string, id: string, activity?: ActivityEntry): Promise<boolean>;
  count(table: string, where: Condition[]): Promise<number>;
  /** Every row matching, only the named columns: for reports over a school's data. */
  select(table: string, columns: string[], where: Condition[]): Promise<Row[]>;
  /**
   * Inserts many rows of one table in one transaction, with their analytics
   * counters and without events or activity entries: a bulk load (a seeded
   * school). Contract: throws DuplicateError, and writes nothing, when a
   * unique column is taken.
   */
  insertMany(table: string, rows: Row[]): Promise<void>;
  /** Deletes every row of the tables named (demo re-seed). */
  clear(tables: string[]): Promise<void>;
}
