import type { FastifySchema } from 'fastify';
import { z } from 'zod';
import { documented, ERROR_BODY } from '../http/routes/route-docs.ts';
import { noStore } from '../oauth/schemas.ts';
import { ROLES } from '../access/roles.ts';

/** OpenAPI description of UserInfo, beside the OAuth routes' own (oauth/schemas.ts). */

const CHALLENGE = { 'www-authenticate': z.string().describe('Bearer challenge with error and resource_metadata (RFC 6750 §3, RFC 9728 §5.1)') };

/** The school role as an extension claim (documented in auth.md and claims_supported). */
export const ROLE_CLAIM = 'school_role';

/** The claims UserInfo can release (OIDC Core §5.4): which ones, by the token's scopes. */
export const USERINFO_CLAIMS = z.object({
  sub: z.string().describe('Stable user identifier'),
  name: z.string().optional().describe('profile'),
  preferred_username: z.string().optional().describe('profile: local part of the email address'),
  updated_at: z.int().optional().describe('profile: seconds since the epoch'),
  [ROLE_CLAIM]: z.enum(ROLES).optional().describe('profile: role in the school'),
  email: z.string().optional().describe('email'),
  email_verified: z.boolean().optional().describe('email: always false'),
});

export const USERINFO_SCHEMA = {
  tags: ['oauth'],
  summary: 'OpenID Connect UserInfo',
  description:
    'Claims about the signed-in user (OpenID Connect Core §5.3): sub always; profile adds name, preferred_username, updated_at and school_role; email adds email and email_verified. GET or POST.',
  response: {
    200: documented(USERINFO_CLAIMS, 'Claims', noStore),
    400: documented(ERROR_BODY, 'invalid_request: access_token in the query string or body'),
    401: documented(ERROR_BODY, 'invalid_token (with WWW-Authenticate), or invalid_request without a token (no challenge)', CHALLENGE),
    403: documented(ERROR_BODY, 'insufficient_scope: the token lacks openid', CHALLENGE),
  },
} satisfies FastifySchema;
