import { z } from 'zod';
import { stringify } from 'csv-stringify';
import { Readable } from 'node:stream';
import { ACTIVITY_CHANNELS, ACTIVITY_EVENT_NAMES, CLIENT_KINDS, OTHER_RECORDS, type ClientKind } from '../../activity/events.ts';
import type { Deps } from '../../deps.ts';
import type { ActivityEntry, ActivityQuery } from '../../store/types.ts';
import { PlatformError } from '../errors.ts';
import { PAGE_SIZE } from '../page-size.ts';

/** An export is read this many entries at a time, each a range of one index. */
const EXPORT_PAGE = 500;

const isoTime = z.iso.datetime({ offset: true });

/** The filters of a list and of an export; every one given must hold. */
export const activityFilters = z.object({
  user_id: z.string().max(100).optional().describe('Only what was done by or for this person'),
  client_id: z.string().max(2048).optional().describe('Only what this app did'),
  record_id: z.string().max(100).optional().describe('Only what happened to this record'),
  record_type: z
    .string()
    .max(100)
    .optional()
    .describe(`Only records of this type: an area (courses, students, ...) or ${Object.values(OTHER_RECORDS).join(', ')}`),
  operation: z.string().max(100).optional().describe('Only this API operation (its operationId) or MCP tool'),
  event: z
    .enum(ACTIVITY_EVENT_NAMES as [string, ...string[]])
    .optional()
    .describe('Only this kind of entry'),
  since: isoTime.optional().describe('From this time (inclusive), RFC 3339'),
  until: isoTime.optional().describe('Before this time (exclusive), RFC 3339'),
});
export type ActivityFilters = z.infer<typeof activityFilters>;

/** One entry as the API, the export and the MCP tool show it. */
export const activityEntrySchema = z.object({
  id: z.string(),
  at: z.string().describe('When, RFC 3339 in UTC'),
  event: z.enum(ACTIVITY_EVENT_NAMES as [string, ...string[]]),
  user_id: z.string().nullable().describe('The person acted for, or who signed in'),
  client: z
    .object({ id: z.string(), name: z.string().nullable(), kind: z.enum(CLIENT_KINDS) })
    .nullable()
    .describe('The app that acted, as it was named then; null for what a person did in the browser'),
  via: z.enum(ACTIVITY_CHANNELS),
  operation: z.string().describe('The API operationId, the MCP tool, or the page action'),
  record: z.object({ type: z.string(), id: z.string() }).nullable(),
  fields: z.array(z.string()).describe('Names of the fields a write set (never their values); the scopes a consent granted'),
});
export type ActivityView = z.infer<typeof activityEntrySchema>;

export function activityView(e: ActivityEntry): ActivityView {
  return {
    id: e.id,
    at: new Date(e.at).toISOString(),
    event: e.event,
    user_id: e.userId,
    client: e.clientId ? { id: e.clientId, name: e.clientName, kind: (e.clientKind ?? 'self_registered') as ClientKind } : null,
    via: e.via as ActivityView['via'],
    operation: e.operation,
    record: e.recordType && e.recordId ? { type: e.recordType, id: e.recordId } : null,
    fields: e.fields,
  };
}

const encodeCursor = (key: [number, string]) => Buffer.from(JSON.stringify(key)).toString('base64url');

function decodeCursor(cursor: string): [number, string] {
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    /* v stays undefined: the error below */
  }
  if (!Array.isArray(v) || v.length !== 2 || !Number.isSafeInteger(v[0]) || typeof v[1] !== 'string' || !/^act_[A-Za-z0-9_-]{1,40}$/.test(v[1])) {
    throw new PlatformError('invalid_request', 'cursor is not one this API returned');
  }
  return v as [number, string];
}

function storeQuery(f: ActivityFilters, limit: number, cursor?: string): ActivityQuery {
  const since = f.since === undefined ? undefined : Date.parse(f.since);
  const until = f.until === undefined ? undefined : Date.parse(f.until);
  if (since !== undefined && until !== undefined && since >= until) throw new PlatformError('invalid_request', 'since must be before until');
  return {
    limit,
    ...(f.user_id !== undefined ? { userId: f.user_id } : {}),
    ...(f.client_id !== undefined ? { clientId: f.client_id } : {}),
    ...(f.record_id !== undefined ? { recordId: f.record_id } : {}),
    ...(f.record_type !== undefined ? { recordType: f.record_type } : {}),
    ...(f.operation !== undefined ? { operation: f.operation } : {}),
    ...(f.event !== undefined ? { event: f.event } : {}),
    ...(since !== undefined ? { since } : {}),
    ...(until !== undefined ? { until } : {}),
    ...(cursor ? { before: decodeCursor(cursor) } : {}),
  };
}

/** The CSV columns of an export, in order: one per fact of an entry. */
const CSV_COLUMNS = ['id', 'at', 'event', 'user_id', 'client_id', 'client_name', 'client_kind', 'via', 'operation', 'record_type', 'record_id', 'fields'] as const;

const csvRow = (v: ActivityView) => [v.id, v.at, v.event, v.user_id, v.client?.id, v.client?.name, v.client?.kind, v.via, v.operation, v.record?.type, v.record?.id, v.fields.join(' ')];

/**
 * The school's activity log as its owner and admins read it: newest first,
 * a page at a time or whole as an export. Only the retention purge ever
 * removes an entry (ACTIVITY_RETENTION_DAYS).
 */
export class ActivityLog {
  constructor(private readonly deps: Deps) {}

  async list(filters: ActivityFilters, limit: number = PAGE_SIZE.records, cursor?: string): Promise<{ data: ActivityView[]; next_cursor?: string }> {
    const page = await this.deps.store.activity.list(storeQuery(filters, limit, cursor));
    return { data: page.entries.map(activityView), ...(page.next ? { next_cursor: encodeCursor(page.next) } : {}) };
  }

  /** Every matching entry, newest first, read a page at a time as the stream is consumed. */
  private async *all(filters: ActivityFilters): AsyncGenerator<ActivityView> {
    let cursor: string | undefined;
    do {
      const page = await this.list(filters, EXPORT_PAGE, cursor);
      yield* page.data;
      cursor = page.next_cursor;
    } while (cursor);
  }

  /** The export as a stream: a CSV with a header row, or a JSON array. Filters are checked before the first byte. */
  export(filters: ActivityFilters, format: 'csv' | 'json'): Readable {
    storeQuery(filters, EXPORT_PAGE);
    const entries = this.all(filters);
    if (format === 'csv') {
      // A cell that starts with = + - @ is quoted with a leading ': an app's name is chosen by the app, and a spreadsheet would run it.
      return Readable.from(entries)
        .map(csvRow)
        .pipe(stringify({ header: true, columns: [...CSV_COLUMNS], escape_formulas: true }));
    }
    return Readable.from(
      (async function* () {
        yield '[';
        let first = true;
        for await (const v of entries) {
          yield `${first ? '' : ','}\n${JSON.stringify(v)}`;
          first = false;
        }
        yield '\n]\n';
      })(),
    );
  }
}
