import type { FastifyInstance, FastifySchema, HTTPMethods, RouteHandlerMethod, RouteShorthandOptions } from 'fastify';

/**
 * One HTTP operation, declared once: with its handler, the route and its
 * /openapi.json entry (operationId, security) come from it. Operations that
 * need a token are declared through the bearer guard's declareRoute
 * (src/resource/declare-route.ts), which adds the scopes and the guard.
 */
export interface Operation {
  method: HTTPMethods;
  path: string;
  /** Unique in /openapi.json, camelCase and stable: clients generate method names from it. */
  operationId: string;
  /** Tags, summary, description, request and response schemas; security and operationId are derived. */
  schema: FastifySchema;
  /** Other route options (config, bodyLimit, ...). */
  options?: Omit<RouteShorthandOptions, 'schema'>;
}

/**
 * Registers an operation with its documented security and, when it needs a
 * token, the guard that checks it.
 */
export function registerOperation(
  app: FastifyInstance,
  operation: Operation,
  security: Record<string, string[]>[],
  guard: Pick<RouteShorthandOptions, 'preValidation'>,
  handler: RouteHandlerMethod,
): void {
  const { method, path, operationId, schema, options = {} } = operation;
  app.route({ ...options, ...guard, method, url: path, schema: { ...schema, operationId, security }, handler });
}

/**
 * Registers a public operation: no token is read. OpenAPI 3.0 §4.8.10: "To
 * remove a top-level security declaration, an empty array can be used", so
 * /openapi.json says `security: []`.
 */
export function declarePublicRoute(app: FastifyInstance, operation: Operation, handler: RouteHandlerMethod): void {
  registerOperation(app, operation, [], {}, handler);
}
