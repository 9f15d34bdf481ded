/**
 * How a field's stored value becomes the API's JSON and back, and which
 * values a column can hold. The field sets are declared inside each test:
 * conversions are worked out once per field set and kept, so a set shared
 * with the rest of the suite would keep what an earlier test worked out.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { columnType, columnValueProblem, recordToRow, rowToRecord, type Fields } from '../../src/platform/fields.ts';
import { fieldInput, recordSchema, recordSummarySchema } from '../../src/platform/field-schemas.ts';
import { jsonSchemaOf } from '../../src/http/routes/route-docs.ts';

const TIMES = { created_at: 0, updated_at: 86_400_000 };

describe('stored rows as API records', () => {
  it('reads booleans, integers, times and JSON as the API shows them', () => {
    const fields: Fields = {
      a: { type: 'boolean', description: 'a' },
      b: { type: 'boolean', description: 'b' },
      c: { type: 'boolean', description: 'c' },
      d: { type: 'boolean', description: 'd' },
      e: { type: 'boolean', description: 'e' },
      n: { type: 'integer', description: 'n' },
      t: { type: 'datetime', description: 't' },
      j: { type: 'json', description: 'j', default: [] },
      k: { type: 'json', description: 'k' },
      o: { type: 'json', description: 'o' },
      s: { type: 'string', description: 's' },
    };
    const row = { id: 'x_1', a: 1, b: '1', c: true, d: 0, e: '', n: '42', t: 1_000, j: null, k: '["one",2]', o: { already: 'parsed' }, s: '7', ...TIMES };
    expect(rowToRecord(fields, row)).toEqual({
      id: 'x_1',
      a: true,
      b: true,
      c: true,
      d: false,
      e: false,
      n: 42,
      t: '1970-01-01T00:00:01.000Z',
      j: [],
      k: ['one', 2],
      o: { already: 'parsed' },
      s: '7',
      created_at: '1970-01-01T00:00:00.000Z',
      updated_at: '1970-01-02T00:00:00.000Z',
    });
  });

  it('turns null and absent input into a cleared column, whatever the type', () => {
    const fields: Fields = {
      a: { type: 'boolean', description: 'a' },
      t: { type: 'datetime', description: 't' },
      j: { type: 'json', description: 'j' },
      s: { type: 'string', description: 's' },
    };
    expect(recordToRow(fields, { a: null, t: null, j: null, s: undefined })).toEqual({ a: null, t: null, j: null, s: null });
    expect(recordToRow(fields, { a: undefined, t: undefined, j: undefined })).toEqual({ a: null, t: null, j: null });
  });
});

describe('what a column can hold', () => {
  it('knows the column type of each field type', () => {
    expect(columnType({ type: 'boolean', description: 'b' })).toBe('integer');
    expect(columnType({ type: 'integer', description: 'i' })).toBe('integer');
    expect(columnType({ type: 'datetime', description: 'd' })).toBe('bigint');
    expect(columnType({ type: 'string', description: 's' })).toBe('text');
  });

  it('takes the edges of each range and nothing past them', () => {
    const boolean = { type: 'boolean', description: 'b' } as const;
    expect(columnValueProblem(boolean, 0)).toBeUndefined();
    expect(columnValueProblem(boolean, 1)).toBeUndefined();
    expect(columnValueProblem(boolean, 2)).toBe('an integer from 0 to 1');

    const integer = { type: 'integer', description: 'i', min: 0, max: 100 } as const;
    expect(columnValueProblem(integer, 100)).toBeUndefined();
    expect(columnValueProblem(integer, 0)).toBeUndefined();
    expect(columnValueProblem(integer, 101)).toBe('an integer from 0 to 100');

    const time = { type: 'datetime', description: 't' } as const;
    expect(columnValueProblem(time, 8.64e15)).toBeUndefined();
    expect(columnValueProblem(time, -8.64e15)).toBeUndefined();
    expect(columnValueProblem(time, 8.64e15 + 1)).toBe('a time in epoch milliseconds');
    expect(columnValueProblem(time, '1')).toBe('a time in epoch milliseconds');

    const text = { type: 'string', description: 's', max: 3 } as const;
    expect(columnValueProblem(text, 'abc')).toBeUndefined();
    expect(columnValueProblem(text, 'abcd')).toBe('a string of at most 3 characters, without NUL');
    expect(columnValueProblem(text, ['a'])).toBe('a string of at most 3 characters, without NUL');
    expect(columnValueProblem(text, 'a\u0000')).toBe('a string of at most 3 characters, without NUL');
  });
});

describe('schemas of fields declared without their details', () => {
  it('takes no value for an enum without values, and for a JSON field the shape it declares', () => {
    const choice = { type: 'enum', description: 'Choice' } as const;
    const data = { type: 'json', description: 'Data', required: true } as const;
    expect(fieldInput(choice).safeParse('x').success).toBe(false);
    expect(fieldInput(choice).safeParse(null).success, 'an optional field may be cleared').toBe(true);
    expect(fieldInput(data).safeParse({ any: ['thing'] }).success).toBe(true);
    const list = { type: 'json', description: 'List', schema: z.array(z.string()).max(2) } as const;
    expect(fieldInput(list).safeParse(['a', 'b']).success).toBe(true);
    expect(fieldInput(list).safeParse(['a', 'b', 'c']).success).toBe(false);
    expect(jsonSchemaOf(recordSchema({ choice, data, list }))).toMatchObject({
      properties: {
        choice: { description: 'Choice', anyOf: [{ not: {} }, { type: 'null' }] },
        data: { description: 'Data' },
        list: { description: 'List', anyOf: [{ type: 'array', maxItems: 2 }, { type: 'null' }] },
      },
    });
  });
});

describe('field values as a body gives them', () => {
  it('takes a time with a zone, Z or an offset, and refuses one without', () => {
    const when = fieldInput({ type: 'datetime', description: 'When', required: true });
    expect(when.safeParse('2026-12-01T18:00:00Z').success).toBe(true);
    expect(when.safeParse('2026-12-01T19:00:00+01:00').success).toBe(true);
    expect(when.safeParse('2026-12-01T18:00:00').success).toBe(false);
  });

  it('takes http and https URLs and no other scheme, whatever it ends or starts with', () => {
    const url = fieldInput({ type: 'url', description: 'Link', required: true });
    expect(['https://example.com/a', 'http://example.com/a'].map((v) => url.safeParse(v).success)).toEqual([true, true]);
    expect(['ftp://example.com/a', 'xhttps://example.com/a', 'httpsx://example.com/a', 'example.com'].map((v) => url.safeParse(v).success)).toEqual([false, false, false, false]);
  });

  it('summarises a record by its id and the fields named, as answers show them', () => {
    const fields: Fields = { title: { type: 'string', description: 'Title', required: true }, note: { type: 'text', description: 'Note' } };
    expect(jsonSchemaOf(recordSummarySchema(fields, ['title']))).toEqual({
      type: 'object',
      properties: { id: { type: 'string', description: 'Identifier' }, title: { type: 'string', minLength: 1, maxLength: 200, description: 'Title' } },
      required: ['id', 'title'],
    });
  });
});
