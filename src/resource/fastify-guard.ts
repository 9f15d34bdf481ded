import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, preValidationHookHandler } from 'fastify';
import type { Deps } from '../deps.ts';
import type { Scope } from '../oauth/scopes.ts';
import { authorizeRequest, type Caller } from './guard.ts';
import { declareScopes, type ResourceName } from './protected-resources.ts';

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
  }
}

export interface ProtectOptions {
  resource?: ResourceName;
  /** Anonymous callers are served (a public view); tokens without the scopes get that view too. */
  publicView?: boolean;
}

function hasTokenParam(request: FastifyRequest): boolean {
  const q = request.query as Record<string, unknown> | undefined;
  const b = request.body as Record<string, unknown> | undefined;
  return (typeof q === 'object' && q !== null && 'access_token' in q) || (typeof b === 'object' && b !== null && !Array.isArray(b) && 'access_token' in b);
}

/**
 * A route's scope requirement, declared once: it guards the route and is
 * recorded for the protected-resource metadata and /openapi.json.
 */
export function protect(deps: Deps, required: readonly Scope[], options: ProtectOptions = {}): preValidationHookHandler {
  const resource = options.resource ?? 'api';
  const publicView = options.publicView ?? false;
  declareScopes(resource, required);
  // A callback hook, not an async one: on SQLite the caller is known at once and the request goes on without waiting a turn.
  return function checkBearer(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) {
    let caller: ReturnType<typeof authorizeRequest>;
    try {
      caller = authorizeRequest(
        { authorization: request.headers.authorization, tokenInQuery: hasTokenParam(request), required, resource, allowAnonymous: publicView, publicView },
        { store: deps.store, issuer: deps.config.issuer, now: deps.now() },
      );
    } catch (err) {
      done(err as Error);
      return;
    }
    if (caller instanceof Promise) {
      caller.then((c) => {
        request.caller = c;
        done();
      }, done);
    } else {
      request.caller = caller;
      done();
    }
  };
}
