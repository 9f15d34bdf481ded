import type { FastifySchema } from 'fastify';
import { z } from 'zod';

/**
 * OpenAPI descriptions of the OAuth routes' requests.
 *
 * The OAuth endpoints read and judge their own parameters (RFC 6749 error
 * codes, exact statuses), so their requests must never be validated by the
 * framework: a `body` or `querystring` schema would be compiled into a
 * validator, and a `required` or a type would answer before the handler with
 * the framework's code instead of the RFC's. The request part is therefore
 * kept under REQUEST_DOC, which
 * Fastify ignores; the /openapi.json transform (openapi.ts) moves it into
 * place for the document only.
 */
export const REQUEST_DOC = 'documentedRequest';

export interface RequestDoc {
  /** Schema of the body, documentation only. */
  body?: z.ZodType;
  /** Schema of the query string, documentation only. */
  querystring?: z.ZodType;
}

type Schema = FastifySchema & { documentedRequest?: RequestDoc };

/** A route schema whose request description reaches /openapi.json but no validator. */
export function describeRoute(schema: FastifySchema, request?: RequestDoc): FastifySchema {
  const documented: Schema = { ...schema, [REQUEST_DOC]: request };
  return request ? documented : schema;
}

/** Moves a documented request into `body` / `querystring` (for the OpenAPI document only). */
export function withDocumentedRequest(schema: FastifySchema): FastifySchema {
  const { [REQUEST_DOC]: request, ...rest } = schema as Schema;
  if (!request) return schema;
  return { ...rest, ...(request.body ? { body: request.body } : {}), ...(request.querystring ? { querystring: request.querystring } : {}) };
}

/** An object of string parameters: {name: description}, with the required ones listed. */
export function stringParams(params: Record<string, string>, required: readonly string[] = []) {
  return z.object(
    Object.fromEntries(Object.entries(params).map(([name, description]) => [name, required.includes(name) ? z.string().describe(description) : z.string().optional().describe(description)])),
  );
}

/** The OpenAPI version of /openapi.json, whose schemas are JSON Schema 2020-12. */
export const OPENAPI_VERSION = '3.1.0';

/** RFC 6749 §5.2 error body: the one shape every refusal of the API, OAuth endpoints and probes answers with. */
export const ERROR_BODY = z.object({
  error: z.string().describe('Error code (RFC 6749 §5.2)'),
  error_description: z.string().describe('What went wrong, for the developer'),
});

/**
 * Error responses by status, each the one error body: given a list of
 * statuses, or each status with what it means for this operation.
 */
export function errorResponses(byStatus: readonly number[] | Record<number, string>): Record<number, z.ZodType> {
  const described: Record<number, string> = Array.isArray(byStatus) ? Object.fromEntries(byStatus.map((status) => [status, `Error (${status})`])) : byStatus;
  return Object.fromEntries(Object.entries(described).map(([status, description]) => [Number(status), documented(ERROR_BODY, description)]));
}

/**
 * A response as /openapi.json shows it: its body's schema with a description
 * and, where the answer carries them, its headers.
 */
export function documented<T extends z.ZodType>(schema: T, description: string, headers?: Record<string, z.ZodType>): T {
  if (!headers) return schema.meta({ description });
  const headerDocs = Object.fromEntries(Object.entries(headers).map(([name, header]) => [name, jsonSchemaOf(header)]));
  return schema.meta({ description, headers: headerDocs });
}

/**
 * What JSON Schema written from zod says twice, or says of zod rather than of
 * the API, is left out: a value with a format (a date-time, an email address)
 * is documented by the format alone, as the expression zod checks it with
 * says the same in 300 characters on every such field; an integer without
 * bounds of its own shows none, rather than the bounds of a safe integer; and
 * an answer's object stays open (zod writes it closed because parsing one
 * drops unknown keys, but answers are sent as built, and a client must not
 * refuse a field added later). Only a strict object, a body that refuses
 * unknown fields, is closed.
 */
export function withoutNoise({ zodSchema, jsonSchema }: { zodSchema: z.core.$ZodType; jsonSchema: Record<string, unknown> }): void {
  const def = zodSchema._zod.def;
  if (def.type === 'object' && !(def as z.core.$ZodObjectDef).catchall && jsonSchema.additionalProperties === false) delete jsonSchema.additionalProperties;
  if (typeof jsonSchema.format === 'string') delete jsonSchema.pattern;
  if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
  if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
}

/** A schema as JSON Schema 2020-12 (the dialect of OpenAPI 3.1), without the dialect's name. */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output' = 'output'): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any', override: withoutNoise }) as Record<string, unknown>;
  const { $schema: _dialect, ...rest } = json;
  return rest;
}
