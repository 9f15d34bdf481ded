import type { FastifySchema } from 'fastify';
import { errorResponses } from '../http/routes/route-docs.ts';
import { noStore } from '../oauth/schemas.ts';

/** OpenAPI description of UserInfo, beside the OAuth routes' own (oauth/schemas.ts). */

const CHALLENGE = { 'www-authenticate': { type: 'string', description: 'Bearer challenge with error and resource_metadata (RFC 6750 §3, RFC 9728 §5.1)' } };

export const USERINFO_SCHEMA: FastifySchema = {
  tags: ['oauth'],
  summary: 'OpenID Connect UserInfo',
  description: 'Claims about the signed-in user (OpenID Connect Core §5.3): sub always; profile adds name, preferred_username, updated_at and school_role; email adds email and email_verified. GET or POST.',
  response: {
    200: {
      type: 'object',
      description: 'Claims',
      required: ['sub'],
      properties: {
        sub: { type: 'string', description: 'Stable user identifier' },
        name: { type: 'string', description: 'profile' },
        preferred_username: { type: 'string', description: 'profile: local part of the email address' },
        updated_at: { type: 'integer', description: 'profile: seconds since the epoch' },
        school_role: { type: 'string', enum: ['owner', 'admin', 'lecturer', 'student'], description: 'profile: role in the school' },
        email: { type: 'string', description: 'email' },
        email_verified: { type: 'boolean', description: 'email: always false' },
      },
      headers: noStore,
    },
    400: { ...errorResponses({ 400: '' })[400], description: 'invalid_request: access_token in the query string or body' },
    401: { ...errorResponses({ 401: '' })[401], description: 'invalid_token (with WWW-Authenticate), or invalid_request without a token (no challenge)', headers: CHALLENGE },
    403: { ...errorResponses({ 403: '' })[403], description: 'insufficient_scope: the token lacks openid', headers: CHALLENGE },
  },
};
