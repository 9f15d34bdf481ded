/**
 * Every OAuth/OIDC path Lyceum serves, as /auth.md lists them. The
 * routes register these and discovery advertises them: one registry, no drift.
 */
export const ENDPOINTS = {
  registration: '/api/oauth/register',
  authorization: '/oauth/authorize',
  token: '/api/oauth/token',
  revocation: '/api/oauth/revoke',
  introspection: '/api/oauth/introspect',
  userinfo: '/api/oauth/userinfo',
  jwks: '/.well-known/jwks.json',
} as const;
