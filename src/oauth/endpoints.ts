/**
 * Every OAuth/OIDC path Lyceum serves, as /auth.md lists them. The
 * routes register these and discovery advertises them: one registry, no drift.
 */
export const ENDPOINTS = {
  registration: '/api/oauth/register',
  authorization: '/oauth/authorize',
  token: '/api/oauth/token',
  deviceAuthorization: '/api/oauth/device_authorization',
  /** RFC 8628 §3.2 verification_uri: the page where a person types a device's code. */
  deviceVerification: '/oauth/device',
  revocation: '/api/oauth/revoke',
  introspection: '/api/oauth/introspect',
  userinfo: '/api/oauth/userinfo',
  jwks: '/.well-known/jwks.json',
} as const;
