import { z } from 'zod';
import { patchBody } from '../http/requests/patch-body.ts';
import { integerBounds, maxLength, type FieldDef, type Fields } from './fields.ts';

/**
 * The schemas of a record's fields, made from their declarations (fields.ts):
 * the REST routes validate bodies with them, /openapi.json documents them and
 * the MCP tools take them, so all three accept the same types, lengths,
 * bounds, enums and nullability.
 */

/** A time as the API writes it: RFC 3339 with a zone (`Z` or an offset). */
const dateTime = () => z.iso.datetime({ offset: true });

/** The value of one field, without its nullability: what input must be and what output is. */
function fieldValue(f: FieldDef): z.ZodType {
  switch (f.type) {
    case 'string':
      return z
        .string()
        .min(f.required ? 1 : 0)
        .max(maxLength(f));
    case 'text':
      return z.string().max(maxLength(f));
    case 'email':
      return z.email().max(maxLength(f));
    case 'url':
      return z.url({ protocol: /^https?$/ }).max(maxLength(f));
    case 'ref':
      return z.string().min(1).max(maxLength(f));
    case 'integer': {
      const { min, max } = integerBounds(f);
      return z.int().min(min).max(max);
    }
    case 'boolean':
      return z.boolean();
    case 'datetime':
      return dateTime();
    case 'enum':
      return z.enum(f.enum ?? []);
    case 'json':
      return f.schema ?? z.unknown();
  }
}

/** The type of a field's value as input. */
type ValueOf<F extends FieldDef> = F['type'] extends 'integer' ? number : F['type'] extends 'boolean' ? boolean : F['type'] extends 'json' ? unknown : string;
/** The type of a field as input: an optional one may be null. */
type InputOf<F extends FieldDef> = F['required'] extends true ? ValueOf<F> : ValueOf<F> | null;

/** One field as create and update take it: an optional field may be null, which clears it. */
export function fieldInput<F extends FieldDef>(f: F): z.ZodType<InputOf<F>> {
  const value = fieldValue(f);
  // fieldValue's switch makes the value of each type; TypeScript cannot follow it to InputOf.
  return (f.required ? value : value.nullable()).describe(f.description) as z.ZodType<InputOf<F>>;
}

/**
 * One field as the API shows it: null where the record has no value, which an
 * optional field may lack, unless it always has one: a JSON field shows its
 * default instead (rowToRecord in fields.ts), and a server-set field with a
 * default is given it on create and never cleared.
 */
function fieldOutput(f: FieldDef): z.ZodType {
  const value = fieldValue(f);
  const alwaysSet = f.default !== undefined && (f.type === 'json' || f.readOnly === true);
  const mayBeNull = !f.required && !alwaysSet;
  return (mayBeNull ? value.nullable() : value).describe(f.description);
}

/**
 * A record as the API shows it: its id, its fields and its two times. Typed
 * as any record, since its fields are known only when the area is.
 */
export function recordSchema(fields: Fields): z.ZodObject<Record<string, z.ZodType>> {
  return z.object({
    id: z.string().describe('Identifier'),
    ...Object.fromEntries(Object.entries(fields).map(([name, f]) => [name, fieldOutput(f)])),
    created_at: dateTime().describe('When it was created'),
    updated_at: dateTime().describe('When it was last changed'),
  });
}

/** Some fields of a record, with its id: a summary of it inside another answer. */
export function recordSummarySchema(fields: Fields, names: readonly string[]): z.ZodObject<Record<string, z.ZodType>> {
  return z.object({ id: z.string().describe('Identifier'), ...Object.fromEntries(names.map((name) => [name, fieldOutput(fields[name]!)])) });
}

/** The fields a client may write, each as fieldInput gives it. */
function writable(fields: Fields): [string, FieldDef][] {
  return Object.entries(fields).filter(([, f]) => !f.readOnly);
}

/** A create body: the required fields, and any other writable one; nothing else. */
export function createSchema(fields: Fields): z.ZodObject<Record<string, z.ZodType>> {
  return z.strictObject(Object.fromEntries(writable(fields).map(([name, f]) => [name, f.required ? fieldInput(f) : fieldInput(f).optional()])));
}

/** An update body: at least one writable field; nothing else. */
export function updateSchema(fields: Fields): z.ZodType<Record<string, unknown>> {
  return patchBody(z.strictObject(Object.fromEntries(writable(fields).map(([name, f]) => [name, fieldInput(f).optional()]))));
}
