import type { FastifyInstance } from 'fastify';
import type { OperationHandler } from '../http/routes/operation.ts';
import type { z } from 'zod';
import type { Deps } from '../deps.ts';
import { ROLE_CLAIM, USERINFO_SCHEMA, type USERINFO_CLAIMS } from './userinfo-schema.ts';
import { declareRoute } from '../resource/declare-route.ts';
import { ENDPOINTS } from '../oauth/endpoints.ts';
import { OAuthError } from '../oauth/errors.ts';
import { invalidToken } from '../resource/guard.ts';
import type { Scope } from '../access/scopes.ts';
import type { User } from '../store/types.ts';

/** The user's claims the token's scopes release (OIDC Core §5.4). */
function claims(user: User, scopes: ReadonlySet<Scope>): z.infer<typeof USERINFO_CLAIMS> {
  const out: z.infer<typeof USERINFO_CLAIMS> = { sub: user.id };
  if (scopes.has('profile')) {
    out.name = user.name;
    out.preferred_username = user.email.split('@')[0];
    out.updated_at = Math.floor(user.updatedAt / 1000);
    out[ROLE_CLAIM] = user.role;
  }
  if (scopes.has('email')) {
    out.email = user.email;
    out.email_verified = false;
  }
  return out;
}

/**
 * GET/POST /api/oauth/userinfo (OIDC Core §5.3). `sub` always; `profile` adds
 * name, preferred_username, updated_at and the school role; `email` adds
 * email and email_verified. Needs a token with `openid`.
 */
export function registerUserinfoRoute(app: FastifyInstance, deps: Deps): void {
  const handler: OperationHandler<typeof USERINFO_SCHEMA> = async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const caller = request.caller;
    if (caller.kind !== 'token') throw new OAuthError('invalid_request', 'UserInfo needs a Bearer access token', 401);
    const user = await deps.store.users.findById(caller.userId);
    if (!user) throw invalidToken({ store: deps.store, issuer: deps.config.issuer, now: deps.now() }, 'api', 'The user of this token no longer exists');
    return claims(user, caller.scopes);
  };
  // OIDC Core §5.3.1: "The Client sends the UserInfo Request using either HTTP GET or HTTP POST".
  const userinfo = { path: ENDPOINTS.userinfo, scopes: ['openid'], schema: USERINFO_SCHEMA } as const;
  declareRoute(app, deps, { ...userinfo, method: 'GET', operationId: 'getUserInfo' }, handler);
  declareRoute(app, deps, { ...userinfo, method: 'POST', operationId: 'postUserInfo' }, handler);
}
