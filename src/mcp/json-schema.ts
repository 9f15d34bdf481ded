import type { AreaDef } from '../platform/areas.ts';
import { recordSchema } from '../platform/fields.ts';
import { API_PREFIX } from '../platform/routes/paths.ts';

/** The dialect of the data-model resources. */
export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/**
 * An OpenAPI 3.0 schema object as JSON Schema 2020-12. The two differ in one
 * keyword the record schemas use: OpenAPI 3.0's `nullable: true` is written
 * in JSON Schema as "null" among the `type`s (and in the `enum`, which
 * otherwise would still refuse null).
 */
export function fromOpenApiSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(fromOpenApiSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  const { nullable, ...rest } = schema as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(rest)) {
    if (key === 'properties' && typeof value === 'object' && value !== null) {
      out.properties = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, fromOpenApiSchema(s)]));
    } else if (key === 'items') out.items = fromOpenApiSchema(value);
    else out[key] = value;
  }
  if (nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    if (Array.isArray(out.enum)) out.enum = [...(out.enum as unknown[]), null];
  }
  return out;
}

/**
 * The JSON Schema of one area's records, as GET /api/v1/{area}/{id} returns
 * them to a caller with the area's read scope: the record schema of
 * /openapi.json, made from the same field declarations.
 */
export function areaJsonSchema(area: AreaDef, uri: string): Record<string, unknown> {
  const declared = Object.entries(area.fields).filter(([, f]) => f.public).map(([name]) => name);
  const shown = ['id', ...declared, 'created_at', 'updated_at'].join(', ');
  let readers: string;
  if (area.publicRead) readers = `Anyone may read ${area.publicRead.published ? 'the published ones' : 'them'}; callers without ${area.readScope} see only the fields ${shown}.`;
  else if (declared.length) readers = `Reading them needs ${area.readScope}. Where they appear in public data (a published course's curriculum outline), only the fields ${shown} show.`;
  else readers = `Reading them needs ${area.readScope}; none of their fields is public.`;
  return {
    $schema: JSON_SCHEMA_DIALECT,
    $id: uri,
    title: area.label,
    description: `One ${area.label} as GET ${API_PREFIX}${area.path}/{id} returns it. ${readers}`,
    ...(fromOpenApiSchema(recordSchema(area.fields)) as Record<string, unknown>),
  };
}
