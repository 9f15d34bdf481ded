import type {
  ContextConfigDefault,
  FastifyInstance,
  FastifySchema,
  HTTPMethods,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
  RouteHandlerMethod,
  RouteShorthandOptions,
} from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';

/**
 * One HTTP operation, declared once: with its handler, the route and its
 * /openapi.json entry (operationId, security) come from it. Operations that
 * need a token are declared through the bearer guard's declareRoute
 * (src/resource/declare-route.ts), which adds the scopes and the guard.
 */
export interface Operation<S extends FastifySchema = FastifySchema> {
  method: HTTPMethods;
  path: string;
  /** Unique in /openapi.json, camelCase and stable: clients generate method names from it. */
  operationId: string;
  /** Tags, summary, description, request and response schemas (zod); security and operationId are derived. */
  schema: S;
  /** Other route options (config, bodyLimit, ...). */
  options?: Omit<RouteShorthandOptions, 'schema'>;
}

/** A handler whose request and answer are typed by the operation's schemas. */
export type OperationHandler<S extends FastifySchema> = RouteHandlerMethod<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  RouteGenericInterface,
  ContextConfigDefault,
  S,
  ZodTypeProvider
>;

/**
 * Registers an operation with its documented security and, when it needs a
 * token, the guard that checks it.
 */
export function registerOperation<S extends FastifySchema>(
  app: FastifyInstance,
  operation: Operation<S>,
  security: Record<string, string[]>[],
  guard: Pick<RouteShorthandOptions, 'preValidation'>,
  handler: OperationHandler<S>,
): void {
  const { method, path, operationId, schema, options = {} } = operation;
  app.withTypeProvider<ZodTypeProvider>().route({ ...options, ...guard, method, url: path, schema: { ...schema, operationId, security }, handler });
}

/**
 * Registers a public operation: no token is read. OpenAPI 3.1 §4.8.10: "To
 * remove a top-level security declaration, an empty array can be used", so
 * /openapi.json says `security: []`.
 */
export function declarePublicRoute<S extends FastifySchema>(app: FastifyInstance, operation: Operation<S>, handler: OperationHandler<S>): void {
  registerOperation(app, operation, [], {}, handler);
}
