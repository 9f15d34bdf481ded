import type { z } from 'zod';

/**
 * Field declarations for the platform's records. One declaration yields the
 * schemas (input validation, /openapi.json and the MCP tools, field-schemas.ts),
 * the public projection for anonymous callers, filters, search and the row ↔ API mapping.
 */
export type FieldType = 'string' | 'text' | 'integer' | 'boolean' | 'datetime' | 'enum' | 'email' | 'url' | 'ref' | 'json';

export interface FieldDef {
  type: FieldType;
  description: string;
  required?: boolean;
  enum?: readonly string[];
  min?: number;
  max?: number;
  /** Shown to anonymous callers (and to tokens without the area's read scope). */
  public?: boolean;
  /** Usable as an equality filter in list queries (?name=value). */
  filter?: boolean;
  /** The platform looks records up by this column (an index is kept, src/platform/list-indexes.ts); filters and refs always are. */
  lookup?: boolean;
  /** Matched by the free-text `q` parameter. */
  search?: boolean;
  /** Set by the server; never accepted in input. */
  readOnly?: boolean;
  /** For 'ref': the area whose id this holds. */
  ref?: string;
  /** For 'json': the schema of the value. */
  schema?: z.ZodType;
  /**
   * For 'integer': a place among the records that hold the same value of this
   * field (a section's among its course's); a record created without one goes
   * after the last of them.
   */
  orderWithin?: string;
  default?: unknown;
}

export type Fields = Record<string, FieldDef>;

/** The bounds of an integer field (declared or the default): validation and stored values alike. */
export function integerBounds(f: FieldDef): { min: number; max: number } {
  return { min: f.min ?? 0, max: f.max ?? 1_000_000_000 };
}

/** The longest text a field takes (declared or its type's default): validation and stored values alike. */
export function maxLength(f: FieldDef): number {
  switch (f.type) {
    case 'string':
      return f.max ?? 200;
    case 'email':
      return 320;
    case 'url':
      return 2000;
    case 'ref':
      return 100;
    default:
      return f.max ?? 100_000;
  }
}

type Converter = (v: unknown) => unknown;

const isoTime = (v: unknown) => new Date(Number(v)).toISOString();

function converterOf(f: FieldDef): Converter | undefined {
  if (f.type === 'boolean') return (v) => v === true || v === 1 || v === '1';
  if (f.type === 'integer') return Number;
  if (f.type === 'datetime') return isoTime;
  if (f.type === 'json') return (v) => (typeof v === 'string' ? JSON.parse(v) : v);
  return undefined;
}

/** Per field set: each field's name, definition and conversion, worked out once rather than per row. */
const plans = new WeakMap<Fields, [string, FieldDef, Converter | undefined][]>();
function planOf(fields: Fields) {
  let plan = plans.get(fields);
  if (!plan) {
    plan = Object.entries(fields).map(([name, f]) => [name, f, converterOf(f)]);
    plans.set(fields, plan);
  }
  return plan;
}

/** A stored row (JSON as text, booleans 0/1, times as epoch ms) → the API's JSON. */
export function rowToRecord(fields: Fields, row: Record<string, unknown>, only?: (f: FieldDef) => boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { id: row.id };
  for (const [name, f, convert] of planOf(fields)) {
    if (only && !only(f)) continue;
    const v = row[name];
    if (v === null || v === undefined) out[name] = f.type === 'json' ? (f.default ?? null) : null;
    else out[name] = convert ? convert(v) : v;
  }
  out.created_at = isoTime(row.created_at);
  out.updated_at = isoTime(row.updated_at);
  return out;
}

/** Validated API input → a row patch. */
export function recordToRow(fields: Fields, input: Record<string, unknown>): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(input)) {
    const f = fields[name];
    if (!f || f.readOnly) continue;
    if (v === null || v === undefined) row[name] = null;
    else if (f.type === 'boolean') row[name] = v ? 1 : 0;
    else if (f.type === 'datetime') row[name] = Date.parse(String(v));
    else if (f.type === 'json') row[name] = JSON.stringify(v);
    else if (f.type === 'email') row[name] = String(v).toLowerCase();
    else row[name] = v;
  }
  return row;
}

/** The server-set times every record has (created_at, updated_at), declared as a field. */
export const RECORD_TIME: FieldDef = { type: 'datetime', description: 'When it was created or last changed', readOnly: true };

/** Epoch ms of the earliest and latest Date (ECMAScript §21.4.1.1): what a datetime column can hold. */
const DATE_LIMIT = 8.64e15;

/**
 * Why `v` cannot be a stored value of the field's column, or undefined when it can: for a
 * value that comes back from a client (a list cursor) before it reaches a query, where
 * PostgreSQL would refuse a value outside the column's type (an integer column is 32 bits).
 */
export function columnValueProblem(f: FieldDef, v: unknown): string | undefined {
  switch (columnType(f)) {
    case 'integer': {
      const { min, max } = f.type === 'boolean' ? { min: 0, max: 1 } : integerBounds(f);
      return Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max ? undefined : `an integer from ${min} to ${max}`;
    }
    case 'bigint':
      return Number.isSafeInteger(v) && Math.abs(v as number) <= DATE_LIMIT ? undefined : 'a time in epoch milliseconds';
    case 'text': {
      const longest = maxLength(f);
      // PostgreSQL text cannot hold a NUL character.
      return typeof v === 'string' && v.length <= longest && !v.includes('\u0000') ? undefined : `a string of at most ${longest} characters, without NUL`;
    }
  }
}

/** SQL column type of a field. */
export function columnType(f: FieldDef): 'text' | 'bigint' | 'integer' {
  if (f.type === 'integer' || f.type === 'boolean') return 'integer';
  if (f.type === 'datetime') return 'bigint';
  return 'text';
}
