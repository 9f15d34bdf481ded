import { z } from 'zod';
import { inputSchema, type FieldDef } from '../platform/fields.ts';
import { fromOpenApiSchema } from './json-schema.ts';

/**
 * The one mapping from a field declaration to the zod schemas of the MCP
 * tools. It goes through the JSON Schemas /api/v1 validates bodies with and
 * documents (fields.ts), so a tool accepts what the REST body accepts: the
 * same types, lengths, bounds, enums and nullability, stated once.
 */
function fromSchema(schema: Record<string, unknown>): z.ZodType {
  // OpenAPI 3.0's `nullable` becomes zod's own, which lists as "this or null" rather than a union of every enum value and type.
  // The description goes on the whole, where clients read it.
  const { nullable, description, ...rest } = schema;
  const converted = z.fromJSONSchema(fromOpenApiSchema(rest) as Parameters<typeof z.fromJSONSchema>[0]);
  const whole = nullable === true ? converted.nullable() : converted;
  return typeof description === 'string' ? whole.describe(description) : whole;
}

/** A field as create and update tools take it: an optional field may be null, which clears it. */
export function fieldInput(f: FieldDef): z.ZodType {
  return fromSchema(inputSchema(f));
}

/**
 * The properties of an object's JSON Schema (a route's body or response
 * schema) as a tool's shape, each optional: the settings tools take and
 * answer exactly what their REST routes do.
 */
export function propertiesShape(schema: { properties: Record<string, unknown> }): z.ZodRawShape {
  return Object.fromEntries(Object.entries(schema.properties).map(([name, s]) => [name, fromSchema(s as Record<string, unknown>).optional()]));
}
