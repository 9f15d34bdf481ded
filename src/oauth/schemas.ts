import type { FastifySchema } from 'fastify';
import { z } from 'zod';
import { describeRoute, documented, errorResponses, stringParams } from '../http/routes/route-docs.ts';
import { AUTHORIZATION_SERVER as AS, DEVICE_CODE_GRANT, orList } from '../util/authorization-server.ts';

/**
 * OpenAPI descriptions of the OAuth routes. Request parts
 * are documentation only (see http/routes/route-docs.ts): the endpoints keep judging
 * their own parameters, with their own error codes.
 */

const FORM = ['application/x-www-form-urlencoded'];
const HTML = z.string().describe('HTML page');
const html = (description: string) => ({ description, content: { 'text/html': { schema: HTML } } });
export const noStore = { 'cache-control': z.string().describe('no-store') };

/** Routes for people in a browser only (sign-in and consent forms): not part of the API. */
export const HIDDEN: FastifySchema = { hide: true };

const CLIENT_AUTH = {
  client_id: 'The client_id from registration (required)',
  client_secret: 'Only for client_secret_post clients; public clients send none. HTTP Basic is refused.',
};

const CLIENT_AUTH_ERRORS = {
  401: 'invalid_client: unknown client, missing or wrong client_secret, or HTTP Basic tried',
};

const LIMITS = AS.limits;

/**
 * RFC 7591 §2 client metadata as this server takes it. The loopback hosts are
 * the configured ones (LOOPBACK_HOSTS), so the prose says what registration does.
 */
const metadataFields = (loopbackHosts: readonly string[]) => ({
  client_name: z.string().max(LIMITS.metadataString).optional().describe('Name shown to the user on the consent page'),
  redirect_uris: z
    .array(z.string())
    .max(LIMITS.redirectUris)
    .optional()
    .describe(
      `Loopback redirect URIs: http with host ${orList(loopbackHosts)}, e.g. http://${loopbackHosts[0]}:8765/callback. The port may be left out: any port is accepted at authorization time. Other entries are dropped; none left is invalid_redirect_uri. Required with the authorization_code grant; a client of the device grant alone needs none.`,
    ),
  token_endpoint_auth_method: z.enum(AS.clientAuthMethods).default(AS.clientAuthMethods[0]).describe('none for public clients; client_secret_post gets a client_secret'),
  application_type: z.enum(AS.applicationTypes).default(AS.applicationTypes[0]).describe('native for CLI tools, desktop apps and local agents'),
  grant_types: z
    .array(z.enum(AS.grantTypes))
    .default([...AS.defaultGrantTypes])
    .describe(`Must include ${orList(AS.signInGrantTypes)}; without refresh_token no refresh token is issued`),
  response_types: z
    .array(z.enum(AS.responseTypes))
    .default([...AS.responseTypes])
    .describe(`${orList(AS.responseTypes)} with the authorization_code grant; [] without it (the device grant has no response type)`),
  scope: z.string().optional().describe('Space-separated scopes used when an authorization request has no scope; unknown ones are dropped. Not a limit.'),
  client_uri: z.url().optional().describe('Home page of the client'),
  logo_uri: z.url().optional().describe('Logo of the client'),
  tos_uri: z.url().optional().describe('Terms of service'),
  policy_uri: z.url().optional().describe('Privacy policy'),
  software_id: z.string().optional().describe('Identifier of the client software'),
  software_version: z.string().optional().describe('Version of the client software'),
  contacts: z.array(z.string()).max(LIMITS.contacts).optional().describe('Contacts of the developers'),
  id_token_signed_response_alg: z.enum(AS.signingAlgs).default(AS.signingAlgs[0]).describe('Algorithm of the ID tokens issued to this client'),
});

/** The registration route's description; `loopbackHosts` is the LOOPBACK_HOSTS setting. */
export const registrationSchema = (loopbackHosts: readonly string[]): FastifySchema =>
  describeRoute(
    {
      tags: ['oauth'],
      summary: 'Register a client',
      description:
        'RFC 7591 dynamic client registration, open without approval to clients whose redirect URIs are loopback addresses (CLI tools, desktop apps, local agents). The body must be application/json; unknown fields are ignored.',
      consumes: ['application/json'],
      response: {
        201: documented(
          z.object({
            client_id: z.string().describe('The new client identifier'),
            client_id_issued_at: z.int().describe('Registration time, seconds since the epoch'),
            client_secret: z.string().optional().describe('Only for client_secret_post; shown only here'),
            client_secret_expires_at: z.int().optional().describe('0: the secret does not expire'),
            ...metadataFields(loopbackHosts),
          }),
          'Registered (RFC 7591 §3.2.1): client_id and the metadata as stored, with the kept redirect URIs and the defaults filled in',
          noStore,
        ),
        ...errorResponses({
          400: 'invalid_redirect_uri (no loopback redirect URI left), invalid_client_metadata or invalid_request',
          413: 'invalid_request: the body is too large',
          415: 'invalid_request: the body is not application/json',
          429: 'too_many_requests (with Retry-After): too many registrations from this address, or the server holds MAX_REGISTERED_CLIENTS clients',
        }),
      },
    },
    { body: z.object(metadataFields(loopbackHosts)).describe('Client metadata (RFC 7591 §2)') },
  );

export const AUTHORIZE_SCHEMA = describeRoute(
  {
    tags: ['oauth'],
    summary: 'Authorization endpoint',
    description:
      'Open in the user’s browser (RFC 6749 §4.1.1 with PKCE, RFC 7636). The user signs in and approves on Lyceum’s pages; the browser is then redirected to redirect_uri with code, state and iss (RFC 9207). Errors about the client or redirect_uri are shown as a page, never redirected.',
    response: {
      302: documented(z.null(), 'To redirect_uri: code, state and iss on approval; error, error_description, state and iss on a redirected error', {
        location: z.string().describe('The client’s redirect_uri with the result'),
      }),
      200: html('Sign-in or consent page'),
      400: html('Error page: unknown client_id, redirect_uri missing or not registered, or another unusable request'),
    },
  },
  {
    querystring: stringParams(
      {
        response_type: orList(AS.responseTypes),
        client_id: 'The client_id from registration',
        redirect_uri: 'A registered redirect URI, always required: a loopback one on any port; an https or app-scheme one the school registered exactly as registered.',
        scope: 'Space-separated scopes; without it the scope registered by the client applies',
        state: 'Opaque value returned on the redirect (up to 2000 bytes of UTF-8)',
        code_challenge: 'BASE64URL(SHA-256(code_verifier)), 43 characters',
        code_challenge_method: `${orList(AS.pkceMethods)} (plain is refused)`,
        resource: 'RFC 8707 resource to bind the tokens to: the issuer (API) or {issuer}/mcp',
        nonce: 'Returned in the ID token (up to 500 characters)',
        prompt: orList(AS.promptValues),
        max_age: 'Maximum age of the sign-in, in seconds',
      },
      ['response_type', 'client_id', 'redirect_uri', 'code_challenge', 'code_challenge_method'],
    ),
  },
);

const TOKEN_RESPONSE = documented(
  z.object({
    access_token: z.string().describe('Opaque Bearer token'),
    token_type: z.enum(['Bearer']),
    expires_in: z.int().describe('Seconds until the access token expires'),
    refresh_token: z.string().optional().describe('Present when the client registered the refresh_token grant; rotates on every use'),
    scope: z.string().describe('The scopes granted: requested ∩ the user’s role'),
    id_token: z.string().optional().describe('OpenID Connect ID token (JWT), on the authorization_code and device_code grants when openid was granted'),
  }),
  'Tokens (RFC 6749 §5.1)',
  noStore,
);

export const TOKEN_SCHEMA = describeRoute(
  {
    tags: ['oauth'],
    summary: 'Token endpoint',
    description:
      'Exchanges an authorization code (with its code_verifier), a device code (RFC 8628 §3.4) or a refresh token for tokens. Form body only. Refresh tokens rotate on every use; a replay inside the grace window returns the same successor, a later one revokes the family.',
    consumes: FORM,
    response: {
      200: TOKEN_RESPONSE,
      ...errorResponses({
        400: 'invalid_request, invalid_grant, invalid_scope, invalid_target, unauthorized_client or unsupported_grant_type; for the device_code grant also authorization_pending, slow_down, access_denied or expired_token (RFC 8628 §3.5)',
        ...CLIENT_AUTH_ERRORS,
      }),
    },
  },
  {
    body: stringParams(
      {
        grant_type: orList(AS.grantTypes),
        device_code: `${DEVICE_CODE_GRANT}: the device_code from the device authorization response`,
        code: 'authorization_code: the code from the redirect',
        redirect_uri: 'authorization_code: exactly the redirect_uri of the authorization request, port included',
        code_verifier: 'authorization_code: the PKCE verifier, 43 to 128 characters',
        refresh_token: 'refresh_token: the current refresh token',
        scope: 'refresh_token: optional narrower scope for the new access token',
        resource: 'RFC 8707: the resource the grant is bound to, or one to narrow an unbound grant to',
        ...CLIENT_AUTH,
      },
      ['grant_type', 'client_id'],
    ),
  },
);

export const DEVICE_AUTHORIZATION_SCHEMA = describeRoute(
  {
    tags: ['oauth'],
    summary: 'Device authorization endpoint',
    description: `RFC 8628 §3.1: for a client without a browser (an SSH session, a container, a CI runner). The client shows user_code and verification_uri to the person, who approves on any device with a browser, then polls the token endpoint with grant_type ${DEVICE_CODE_GRANT} every interval seconds. Form body only; the client must have registered the grant.`,
    consumes: FORM,
    response: {
      200: documented(
        z.object({
          device_code: z.string().describe('Secret the client polls the token endpoint with; never shown to the person'),
          user_code: z
            .string()
            .describe(`What the person types: ${AS.deviceFlow.userCodeLength} letters of ${AS.deviceFlow.userCodeAlphabet} as two groups joined by a dash; case and dash do not matter`),
          verification_uri: z.string().describe('The page where the person types the code'),
          verification_uri_complete: z.string().describe('The same page with the code filled in, for a link or a QR code'),
          expires_in: z.int().describe('Seconds the codes live'),
          interval: z.int().describe('Seconds to wait between polls'),
        }),
        'Device authorization (RFC 8628 §3.2)',
        noStore,
      ),
      ...errorResponses({ 400: 'invalid_request, invalid_scope, invalid_target or unauthorized_client (the client did not register the device grant)', ...CLIENT_AUTH_ERRORS }),
    },
  },
  {
    body: stringParams(
      {
        scope: 'Space-separated scopes; without it the scope registered by the client applies',
        resource: 'RFC 8707 resource to bind the tokens to: the issuer (API) or {issuer}/mcp',
        ...CLIENT_AUTH,
      },
      ['client_id'],
    ),
  },
);

export const DEVICE_PAGE_SCHEMA = describeRoute(
  {
    tags: ['oauth'],
    summary: 'Device verification page',
    description:
      'RFC 8628 §3.3 verification_uri: open in a browser. The person signs in if needed, types the code the device shows (or checks the one the link filled in), and approves or denies on the consent page.',
    response: {
      200: html('The code form (after sign-in)'),
      303: documented(z.null(), 'To the sign-in page, which comes back here', { location: z.string().describe('The sign-in page') }),
    },
  },
  { querystring: stringParams({ user_code: 'The code to fill in: verification_uri_complete carries it' }) },
);

export const REVOCATION_SCHEMA = describeRoute(
  {
    tags: ['oauth'],
    summary: 'Revoke a token',
    description: 'RFC 7009. Revoking a refresh token ends every token of its family; revoking an access token ends only that token. Unknown tokens answer 200; a token of another client is refused.',
    consumes: FORM,
    response: {
      200: documented(z.null(), 'Revoked, or the token was not valid anyway'),
      ...errorResponses({ 400: 'invalid_request (e.g. the token belongs to another client) or unsupported_token_type', ...CLIENT_AUTH_ERRORS }),
    },
  },
  {
    body: stringParams({ token: 'The access or refresh token to revoke', token_type_hint: 'access_token or refresh_token (optional)', ...CLIENT_AUTH }, ['token', 'client_id']),
  },
);

export const INTROSPECTION_SCHEMA = describeRoute(
  {
    tags: ['oauth'],
    summary: 'Introspect a token',
    description: 'RFC 7662. A client may introspect only its own tokens; any other, expired, revoked or unknown token is {"active": false}.',
    consumes: FORM,
    response: {
      200: documented(
        z.object({
          active: z.boolean(),
          scope: z.string().optional(),
          client_id: z.string().optional(),
          sub: z.string().optional().describe('The user'),
          exp: z.int().optional(),
          iat: z.int().optional(),
          auth_time: z.int().optional(),
          iss: z.string().optional(),
          token_type: z.enum(['Bearer', 'refresh_token']).optional(),
          aud: z
            .union([z.string(), z.array(z.string())])
            .optional()
            .describe('The bound resource, or both resource identifiers for an unbound token'),
        }),
        'Token state',
        noStore,
      ),
      ...errorResponses({ 400: 'invalid_request', ...CLIENT_AUTH_ERRORS }),
    },
  },
  { body: stringParams({ token: 'The token to introspect', token_type_hint: 'access_token or refresh_token (optional)', ...CLIENT_AUTH }, ['token', 'client_id']) },
);
