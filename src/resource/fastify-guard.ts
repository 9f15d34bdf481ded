import type { FastifyRequest, preValidationAsyncHookHandler } from 'fastify';
import { paramsOf } from '../http/requests/params.ts';
import type { Deps } from '../deps.ts';
import type { Scope } from '../access/scopes.ts';
import { authorizeRequest, type Caller } from './guard.ts';
import type { ResourceName } from './protected-resources.ts';

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
  }
}

export interface ProtectOptions {
  resource?: ResourceName;
  /** Anonymous callers are served (a public view); tokens without the scopes get that view too. */
  publicView: boolean;
}

function hasTokenParam(request: FastifyRequest): boolean {
  return 'access_token' in paramsOf(request.query) || 'access_token' in paramsOf(request.body);
}

/**
 * The bearer guard of a route that needs scopes. Routes get it from their
 * declaration (src/http/routes/operation.ts), which also documents the same scopes.
 */
export function protect(deps: Deps, required: readonly Scope[], options: ProtectOptions): preValidationAsyncHookHandler {
  const resource = options.resource ?? 'api';
  const { publicView } = options;
  return async function checkBearer(request) {
    request.caller = await authorizeRequest(
      { authorization: request.headers.authorization, tokenInQuery: hasTokenParam(request), required, resource, allowAnonymous: publicView, publicView },
      { store: deps.store, issuer: deps.config.issuer, now: deps.now() },
    );
  };
}
