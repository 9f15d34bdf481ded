import type { AreaDef } from '../platform/areas.ts';
import { recordSchema } from '../platform/field-schemas.ts';
import { jsonSchemaOf } from '../http/routes/route-docs.ts';
import { API_PREFIX } from '../platform/routes/paths.ts';

/** The dialect of the data-model resources. */
export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/**
 * The JSON Schema of one area's records, as GET /api/v1/{area}/{id} returns
 * them to a caller with the area's read scope: the record schema of
 * /openapi.json, made from the same field declarations.
 */
export function areaJsonSchema(area: AreaDef, uri: string): Record<string, unknown> {
  const declared = Object.entries(area.fields)
    .filter(([, f]) => f.public)
    .map(([name]) => name);
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
    ...jsonSchemaOf(recordSchema(area.fields)),
  };
}
