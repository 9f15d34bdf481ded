import { actingAs } from '../activity/acting.ts';
import type { FastifyInstance, FastifySchema } from 'fastify';
import type { Deps } from '../deps.ts';
import { registerOperation, type Operation, type OperationHandler } from '../http/routes/operation.ts';
import type { Scope } from '../access/scopes.ts';
import { protect } from './fastify-guard.ts';

/** Name of the OAuth 2.0 security scheme in /openapi.json. */
export const OAUTH_SCHEME = 'lyceum_oauth';

/** An operation that needs a token with scopes. */
export interface GuardedOperation<S extends FastifySchema = FastifySchema> extends Operation<S> {
  /** Scopes a token needs. */
  scopes: readonly Scope[];
  /** Anonymous callers, and tokens without the scopes, are served a public view. */
  anonymousView?: boolean;
}

/**
 * OpenAPI 3.1 §4.8.10: "An empty Security Requirement Object ({}) can be
 * included in the array" to make security optional: an operation with an
 * anonymous view lists {} beside its scopes.
 */
export function securityOf(operation: Pick<GuardedOperation, 'scopes' | 'anonymousView'>): Record<string, string[]>[] {
  return [{ [OAUTH_SCHEME]: [...operation.scopes] }, ...(operation.anonymousView ? [{}] : [])];
}

/**
 * Registers an operation that needs scopes: the route, the bearer guard in
 * its preValidation and its documented security, from the one declaration.
 * A token's request runs as its app acting for its user (acting.ts), so
 * whatever the operation writes is logged with them.
 */
export function declareRoute<S extends FastifySchema>(app: FastifyInstance, deps: Deps, operation: GuardedOperation<S>, handler: OperationHandler<S>): void {
  const { scopes, anonymousView = false, operationId } = operation;
  const preValidation = protect(deps, scopes, { publicView: anonymousView });
  const asCaller: OperationHandler<S> = function (request, reply) {
    const caller = request.caller;
    if (caller.kind !== 'token') return handler.call(this, request, reply);
    return actingAs({ userId: caller.userId, clientId: caller.clientId, via: 'api', operation: operationId }, () => handler.call(this, request, reply));
  };
  registerOperation(app, operation, securityOf(operation), { preValidation }, asCaller);
}
