import { randomBytes } from 'node:crypto';
import type { Deps } from '../deps.ts';
import { PlatformError } from './errors.ts';
import { describeCause } from '../http/errors/http-error.ts';
import type { Caller } from '../resource/guard.ts';
import { writeEntry } from '../activity/record.ts';
import { DuplicateError, type ActivityEntry, type Condition, type Row } from '../store/types.ts';
import { AREAS, sortColumn, type AreaDef } from './areas.ts';
import { clampPageSize, PAGE_SIZE } from './page-size.ts';
import { eventsOnCreate, eventsOnUpdate } from './webhooks/events.ts';
import { columnValueProblem, RECORD_TIME, recordToRow, rowToRecord, type FieldDef } from './fields.ts';

/** How much of an area a caller sees. */
export type View = 'full' | 'public';

export function viewFor(area: AreaDef, caller: Caller): View | undefined {
  if (caller.kind === 'token' && area.readScope && caller.scopes.has(area.readScope)) return 'full';
  return area.publicRead ? 'public' : undefined;
}

const isPublic = (f: FieldDef) => f.public === true;

export interface ListParams {
  limit?: number;
  cursor?: string;
  q?: string;
  filters?: Record<string, string>;
}

/** `dryRun`: check everything the write would (references, unique values, existence) and answer what it would store, writing nothing. */
export interface WriteOptions {
  dryRun?: boolean;
}

export interface Page {
  data: Record<string, unknown>[];
  next_cursor?: string;
}

type Rec = Record<string, unknown>;

/**
 * How one caller is shown records and what it may send back: RecordService
 * applies it to everything it reads, lists and writes, in its own methods.
 * A view is never a wrapper around the service, so no view can drop an
 * argument (a dry run, a filter) on the way to the write it guards.
 */
export interface RecordPresentation {
  /** The record (or a stored row) as the caller is shown it. */
  show(area: AreaDef, record: Rec): Rec;
  /** The area as the caller's search and filters may use it; throws when they may not. */
  searchable(area: AreaDef, params: ListParams): AreaDef;
  /** Throws when a create's input holds what may not be stored. */
  checkCreate(area: AreaDef, input: Rec): void;
  /**
   * An update's patch as it may be stored; `shownBefore` reads the record as
   * the caller was shown it (an agent may send back what it read).
   */
  checkUpdate(area: AreaDef, input: Rec, shownBefore: () => Promise<Rec>): Promise<Rec>;
}

/** Records as they are stored: what /api/v1 shows. */
export const AS_STORED: RecordPresentation = {
  show: (_area, record) => record,
  searchable: (area) => area,
  checkCreate: () => undefined,
  checkUpdate: async (_area, input) => input,
};

const notFound = (area: AreaDef, id: string) => new PlatformError('not_found', `No ${area.label} with id ${id}`);

function encodeCursor(key: [unknown, string]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** The declaration of the column an area's lists are sorted by. */
function sortField(area: AreaDef): [string, FieldDef] {
  const sort = sortColumn(area);
  return [sort, area.fields[sort] ?? RECORD_TIME];
}

/**
 * A cursor is base64url JSON [sort value, id] made by encodeCursor; anything else was not made
 * here. Its sort value is checked against the sort column's declared type before it reaches a
 * query, where PostgreSQL would refuse (a 500) a value its column cannot hold.
 */
function decodeCursor(area: AreaDef, cursor: string): [unknown, string] {
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    /* v stays undefined: the error below */
  }
  if (!Array.isArray(v) || v.length !== 2 || typeof v[1] !== 'string' || !/^[A-Za-z0-9_-]{1,100}$/.test(v[1])) {
    throw new PlatformError('invalid_request', 'cursor is not one this API returned');
  }
  const [name, field] = sortField(area);
  const problem = columnValueProblem(field, v[0]);
  if (problem) throw new PlatformError('invalid_request', `cursor is not one this API returned: its ${name} must be ${problem}`);
  return v as [unknown, string];
}

/** Conditions that restrict a public view to published (and upcoming) records. */
function publicConditions(area: AreaDef, now: number): Condition[] {
  const where: Condition[] = [];
  if (area.publicRead?.published) where.push(['status', '=', 'published']);
  if (area.publicRead?.upcoming) where.push([area.publicRead.upcoming, '>=', now]);
  return where;
}

function filterConditions(area: AreaDef, filters: Record<string, string>, view: View): Condition[] {
  const where: Condition[] = [];
  for (const [name, raw] of Object.entries(filters)) {
    const f = area.fields[name];
    if (!f?.filter) continue;
    if (view === 'public' && !f.public) continue;
    if (f.type === 'boolean') {
      if (raw !== 'true' && raw !== 'false') throw new PlatformError('invalid_request', `${name} must be true or false`);
      where.push([name, '=', raw === 'true' ? 1 : 0]);
      continue;
    }
    // The REST query schema refuses another value first; list_records takes filters as plain text.
    if (f.type === 'enum' && !f.enum?.includes(raw)) throw new PlatformError('invalid_request', `${name} must be one of ${f.enum?.join(', ')}`);
    where.push([name, '=', f.type === 'email' ? raw.toLowerCase() : raw]);
  }
  return where;
}

/**
 * The one service behind /api/v1 and the MCP tools: lists, reads and writes
 * an area's records with the caller's view. Routes and tools never query the
 * store for platform records themselves.
 */
export class RecordService {
  constructor(
    private readonly deps: Deps,
    private readonly presentation: RecordPresentation = AS_STORED,
  ) {}

  /** The same service, showing records through `presentation` (MCP's learner pseudonyms). */
  presentedAs(presentation: RecordPresentation): RecordService {
    return new RecordService(this.deps, presentation);
  }

  async list(area: AreaDef, view: View, params: ListParams = {}): Promise<Page> {
    const page = await this.listAsStored(this.presentation.searchable(area, params), view, params);
    return { ...page, data: page.data.map((r) => this.presentation.show(area, r)) };
  }

  private async listAsStored(area: AreaDef, view: View, params: ListParams): Promise<Page> {
    const limit = clampPageSize(params.limit ?? PAGE_SIZE.records);
    const where = [...filterConditions(area, params.filters ?? {}, view), ...(view === 'public' ? publicConditions(area, this.deps.now()) : [])];
    const searchable = Object.entries(area.fields)
      .filter(([, f]) => f.search && (view === 'full' || f.public))
      .map(([n]) => n);
    const { rows, next } = await this.deps.store.records.list(area.name, {
      where,
      sort: sortField(area)[0],
      limit,
      // The route's query schema and the MCP tool's input both cap q at 200 characters.
      ...(params.q ? { search: { columns: searchable, text: params.q } } : {}),
      ...(params.cursor ? { after: decodeCursor(area, params.cursor) } : {}),
    });
    return {
      data: rows.map((r) => rowToRecord(area.fields, r, view === 'public' ? isPublic : undefined)),
      ...(next ? { next_cursor: encodeCursor(next) } : {}),
    };
  }

  /** One record; a public view hides unpublished ones as if they did not exist. */
  async get(area: AreaDef, view: View, id: string): Promise<Record<string, unknown>> {
    return this.presentation.show(area, await this.getAsStored(area, view, id));
  }

  /** The stored row, as the caller is shown it (for services that read columns a record converts). */
  async getRow(area: AreaDef, view: View, id: string): Promise<Row> {
    return this.presentation.show(area, await this.rowAsStored(area, view, id)) as Row;
  }

  private async getAsStored(area: AreaDef, view: View, id: string): Promise<Record<string, unknown>> {
    const row = await this.rowAsStored(area, view, id);
    return rowToRecord(area.fields, row, view === 'public' ? isPublic : undefined);
  }

  private async rowAsStored(area: AreaDef, view: View, id: string): Promise<Row> {
    const row = await this.deps.store.records.get(area.name, id);
    if (!row) throw notFound(area, id);
    if (view === 'public') {
      for (const [col, op, v] of publicConditions(area, this.deps.now())) {
        const value = row[col];
        // publicConditions makes only '=' and '>=' conditions.
        const visible = op === '=' ? value === v : Number(value) >= Number(v);
        if (!visible) throw notFound(area, id);
      }
    }
    return row;
  }

  async create(area: AreaDef, input: Record<string, unknown>, opts: WriteOptions = {}): Promise<Record<string, unknown>> {
    this.presentation.checkCreate(area, input);
    return this.presentation.show(area, await this.createAsStored(area, input, opts));
  }

  private async createAsStored(area: AreaDef, input: Record<string, unknown>, opts: WriteOptions): Promise<Record<string, unknown>> {
    const now = this.deps.now();
    const row: Row = { ...this.defaults(area), ...recordToRow(area.fields, input), id: `${area.idPrefix}_${randomBytes(9).toString('base64url')}`, created_at: now, updated_at: now };
    await this.derive(area, row);
    await this.checkReferences(area, row);
    await this.placeLast(area, row, input);
    const autoSlug = 'slug' in area.fields && !input.slug;
    if (autoSlug) row.slug = slugify(String(row.title ?? row.name ?? row.id));
    // A generated slug that is taken gets a suffix when stored, so only a given one can conflict.
    if (opts.dryRun) await this.checkUnique(area, row, Object.keys(row), { generated: autoSlug ? 'slug' : undefined });
    else await this.insertRow(area, row, autoSlug, await writeEntry(this.deps, 'record.created', area.name, String(row.id), writtenFields(area, input)));
    return rowToRecord(area.fields, row);
  }

  async update(area: AreaDef, id: string, input: Record<string, unknown>, opts: WriteOptions = {}): Promise<Record<string, unknown>> {
    const accepted = await this.presentation.checkUpdate(area, input, async () => this.presentation.show(area, await this.getAsStored(area, 'full', id)));
    return this.presentation.show(area, await this.updateAsStored(area, id, accepted, opts));
  }

  private async updateAsStored(area: AreaDef, id: string, input: Record<string, unknown>, opts: WriteOptions): Promise<Record<string, unknown>> {
    const patch: Row = { ...recordToRow(area.fields, input), updated_at: this.deps.now() };
    await this.derive(area, patch);
    await this.checkReferences(area, patch);
    if (opts.dryRun) {
      const row = { ...(await this.rowAsStored(area, 'full', id)), ...patch };
      await this.checkUnique(area, row, Object.keys(input), { self: id });
      return rowToRecord(area.fields, row);
    }
    try {
      const entry = await writeEntry(this.deps, 'record.updated', area.name, id, writtenFields(area, input));
      const row = await this.deps.store.records.update(area.name, id, patch, eventsOnUpdate(area, Number(patch.updated_at)), entry);
      if (!row) throw notFound(area, id);
      return rowToRecord(area.fields, row);
    } catch (err) {
      if (err instanceof DuplicateError) throw conflict(area, Object.keys(input), err);
      throw err;
    }
  }

  async delete(area: AreaDef, id: string, opts: WriteOptions = {}): Promise<void> {
    if (!(await this.deps.store.records.get(area.name, id))) throw notFound(area, id);
    for (const [table, column] of area.onDelete?.restrict ?? []) {
      const n = await this.deps.store.records.count(table, [[column, '=', id]]);
      if (n > 0) throw new PlatformError('conflict', `This ${area.label} still has ${n} ${table}; remove them first`);
    }
    // The records a delete cascades to restrict nothing themselves (areas.ts), so this is as far as a dry run checks.
    if (opts.dryRun) return;
    for (const [table, column] of area.onDelete?.cascade ?? []) {
      const ids = await this.deps.store.records.select(table, ['id'], [[column, '=', id]]);
      const child = Object.values(AREAS).find((a) => a.name === table);
      for (const { id: childId } of ids) {
        if (child) await this.delete(child, String(childId));
      }
    }
    await this.deps.store.records.delete(area.name, id, await writeEntry(this.deps, 'record.deleted', area.name, id));
  }

  /** Every declared default as a column value, server-set (read-only) fields included. */
  private defaults(area: AreaDef): Row {
    const out: Row = {};
    for (const [name, f] of Object.entries(area.fields)) {
      if (f.default === undefined) continue;
      out[name] = f.type === 'json' ? JSON.stringify(f.default) : f.type === 'boolean' ? (f.default ? 1 : 0) : f.default;
    }
    return out;
  }

  /** Fields computed from others: a lesson's course comes from its section. */
  private async derive(area: AreaDef, row: Row): Promise<void> {
    if (area.name === 'lessons' && typeof row.section_id === 'string') {
      const section = await this.deps.store.records.get('sections', row.section_id);
      if (section) row.course_id = section.course_id;
    }
  }

  /**
   * A record created without its place among its siblings goes after the last
   * of them, so records created one by one keep the order they were created in.
   * Two created at the same moment may share a place; the list then orders them by id.
   */
  private async placeLast(area: AreaDef, row: Row, input: Record<string, unknown>): Promise<void> {
    for (const [name, f] of Object.entries(area.fields)) {
      if (!f.orderWithin || input[name] !== undefined) continue;
      const siblings = await this.deps.store.records.select(area.name, [name], [[f.orderWithin, '=', row[f.orderWithin]]]);
      const last = siblings.reduce((max, s) => Math.max(max, Number(s[name])), -1);
      row[name] = Math.min(last + 1, f.max ?? Number.MAX_SAFE_INTEGER);
    }
  }

  private async checkReferences(area: AreaDef, row: Row): Promise<void> {
    for (const [name, f] of Object.entries(area.fields)) {
      const v = row[name];
      if (f.type !== 'ref' || typeof v !== 'string' || f.readOnly) continue;
      const table = f.ref === 'files' ? undefined : f.ref!;
      const exists = table ? await this.deps.store.records.get(table, v) : await this.deps.store.files.find(v);
      if (!exists) throw new PlatformError('invalid_request', `${name}: no ${f.ref!.replace(/_/g, ' ').replace(/s$/, '')} with id ${v}`);
    }
  }

  /**
   * For a dry run, which writes nothing for the store's unique indexes to refuse: a unique
   * value (or set of values) that another record already holds is the same 409 conflict a
   * real write would meet, naming the `changed` fields. `self` is the record being changed, which
   * holds its own values; `generated` a unique set the store makes unique itself (a made-up
   * slug gets a suffix), which no dry run can conflict on.
   */
  private async checkUnique(area: AreaDef, row: Row, changed: string[], { self, generated }: { self?: string; generated?: string | undefined } = {}): Promise<void> {
    for (const unique of area.unique ?? []) {
      if (unique === generated) continue;
      const columns = unique.split(',');
      // A set the change leaves alone holds only this record's values, which no other holds; a
      // null matches nothing here, as in a unique index.
      const holders = await this.deps.store.records.select(
        area.name,
        ['id'],
        columns.map((c) => [c, '=', row[c]] as Condition),
      );
      if (holders.some((h) => h.id !== self)) throw conflict(area, changed);
    }
  }

  private async insertRow(area: AreaDef, row: Row, retrySlug: boolean, entry: ActivityEntry | undefined): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        // The webhook events and the activity entry are written in the insert's transaction.
        await this.deps.store.records.insert(area.name, row, eventsOnCreate(area, row, Number(row.created_at)), entry);
        return;
      } catch (err) {
        if (!(err instanceof DuplicateError)) throw err;
        if (!retrySlug || attempt >= 3) throw conflict(area, Object.keys(row), err);
        // Only a generated slug is retried, and slugify keeps it to 100 characters.
        row.slug = `${String(row.slug)}-${randomBytes(3).toString('hex')}`;
      }
    }
  }
}

/** The declared fields a write was given: the names its activity entry lists (never the values). */
const writtenFields = (area: AreaDef, input: Record<string, unknown>): string[] => Object.keys(input).filter((name) => Object.hasOwn(area.fields, name));

/** A unique value taken: the client reads which one; the store's own message goes to the log. */
function conflict(area: AreaDef, fields: string[], cause?: DuplicateError): PlatformError {
  const touches = (u: string) => u.split(',').some((c) => fields.includes(c));
  const unique = (area.unique ?? []).filter(touches);
  const what = unique.join(' / ') || 'value';
  const error = new PlatformError('conflict', `Another ${area.label} already has this ${what}`);
  return cause ? error.withDetail(describeCause(cause)) : error;
}

export function slugify(text: string): string {
  const s = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    // The replace above leaves single dashes, so at most one at each end.
    .replace(/^-|-$/g, '')
    .slice(0, 100);
  return s || 'item';
}
