import type { FastifySchema } from 'fastify';

/**
 * OpenAPI descriptions of the OAuth routes' requests.
 *
 * The OAuth endpoints read and judge their own parameters (RFC 6749 error
 * codes, exact statuses), so their requests must never be validated by the
 * framework: a `body` or `querystring` schema would be compiled into an Ajv
 * validator (a `type` or `required` would answer before the handler, and
 * even a schema with bare `properties` makes Ajv log strict-mode warnings at
 * every start). The request part is therefore kept under REQUEST_DOC, which
 * Fastify ignores; the /openapi.json transform (openapi.ts) moves it into
 * place for the document only.
 */
export const REQUEST_DOC = 'documentedRequest';

export interface RequestDoc {
  /** JSON Schema of the body, documentation only. */
  body?: Record<string, unknown>;
  /** JSON Schema of the query string, documentation only. */
  querystring?: Record<string, unknown>;
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
export function stringParams(params: Record<string, string>, required: readonly string[] = []): Record<string, unknown> {
  return {
    type: 'object',
    properties: Object.fromEntries(Object.entries(params).map(([name, description]) => [name, { type: 'string', description }])),
    ...(required.length > 0 ? { required: [...required] } : {}),
  };
}

/** RFC 6749 §5.2 error body: the one shape every refusal of the API, OAuth endpoints and probes answers with. */
export const ERROR_BODY = {
  type: 'object',
  required: ['error', 'error_description'],
  properties: {
    error: { type: 'string', description: 'Error code (RFC 6749 §5.2)' },
    error_description: { type: 'string', description: 'What went wrong, for the developer' },
  },
} as const;

/**
 * Error responses by status, each the one error body: given a list of
 * statuses, or each status with what it means for this operation.
 */
export function errorResponses(byStatus: readonly number[] | Record<number, string>): Record<number, Record<string, unknown>> {
  const described = Array.isArray(byStatus) ? Object.fromEntries(byStatus.map((status) => [status, `Error (${status})`])) : byStatus;
  return Object.fromEntries(Object.entries(described).map(([status, description]) => [Number(status), { ...ERROR_BODY, description }]));
}
