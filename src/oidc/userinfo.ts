import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps.ts';
import { USERINFO_SCHEMA } from '../discovery/oauth-schemas.ts';
import { ENDPOINTS } from '../oauth/endpoints.ts';
import { OAuthError } from '../oauth/errors.ts';
import { protect } from '../resource/fastify-guard.ts';
import { invalidToken } from '../resource/guard.ts';

/** The school role as an extension claim (documented in auth.md and claims_supported). */
export const ROLE_CLAIM = 'school_role';

/**
 * GET/POST /api/oauth/userinfo (OIDC Core §5.3). `sub` always; `profile` adds
 * name, preferred_username, updated_at and the school role; `email` adds
 * email and email_verified. Needs a token with `openid`.
 */
export function registerUserinfoRoute(app: FastifyInstance, deps: Deps): void {
  const handler = async (request: import('fastify').FastifyRequest, reply: import('fastify').FastifyReply) => {
    reply.header('cache-control', 'no-store');
    const caller = request.caller;
    if (caller.kind !== 'token') throw new OAuthError('invalid_request', 'UserInfo needs a Bearer access token', 401);
    const user = await deps.store.users.findById(caller.userId);
    if (!user) throw invalidToken({ store: deps.store, issuer: deps.config.issuer, now: deps.now() }, 'api', 'The user of this token no longer exists');
    return {
      sub: user.id,
      ...(caller.scopes.has('profile')
        ? { name: user.name, preferred_username: user.email.split('@')[0], updated_at: Math.floor(user.updatedAt / 1000), [ROLE_CLAIM]: user.role }
        : {}),
      ...(caller.scopes.has('email') ? { email: user.email, email_verified: false } : {}),
    };
  };
  const preValidation = protect(deps, ['openid']);
  app.get(ENDPOINTS.userinfo, { preValidation, schema: USERINFO_SCHEMA }, handler);
  app.post(ENDPOINTS.userinfo, { preValidation, schema: USERINFO_SCHEMA }, handler);
}
