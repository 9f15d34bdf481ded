/**
 * What a client is told the authorization server supports, stated by hand
 * (never read from the capability object): the two metadata documents, the
 * registration schema in /openapi.json with its prose about loopback hosts,
 * and registration refusing anything outside each list. The server runs with
 * LOOPBACK_HOSTS=127.0.0.1,[::1], so the prose must name exactly those two.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJson } from '../helpers/bearer.ts';
import { register } from '../helpers/oauth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

/** The value at a path of keys in a parsed JSON document, or undefined. */
const at = (value: unknown, ...keys: string[]): unknown => keys.reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], value);

const SUPPORTED = {
  response_types_supported: ['code'],
  response_modes_supported: ['query'],
  grant_types_supported: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
  code_challenge_methods_supported: ['S256'],
  token_endpoint_auth_methods_supported: ['none', 'client_secret_post'],
  revocation_endpoint_auth_methods_supported: ['none', 'client_secret_post'],
  introspection_endpoint_auth_methods_supported: ['none', 'client_secret_post'],
  subject_types_supported: ['public'],
  id_token_signing_alg_values_supported: ['RS256', 'ES256'],
  prompt_values_supported: ['none', 'login', 'consent'],
  client_id_metadata_document_supported: true,
};

const REDIRECT_URIS_PROSE =
  'Loopback redirect URIs: http with host 127.0.0.1 or [::1], e.g. http://127.0.0.1:8765/callback. ' +
  'The port may be left out: any port is accepted at authorization time. Other entries are dropped; none left is invalid_redirect_uri. ' +
  'Required with the authorization_code grant; a client of the device grant alone needs none.';

/** One value outside each list registration checks, and the error it gets (RFC 7591 §3.2.2). */
const OUTSIDE: { field: string; value: unknown; error: string }[] = [
  { field: 'token_endpoint_auth_method', value: 'client_secret_basic', error: 'invalid_client_metadata' },
  { field: 'token_endpoint_auth_method', value: 'private_key_jwt', error: 'invalid_client_metadata' },
  { field: 'grant_types', value: ['authorization_code', 'client_credentials'], error: 'invalid_client_metadata' },
  { field: 'grant_types', value: ['refresh_token'], error: 'invalid_client_metadata' },
  { field: 'response_types', value: ['token'], error: 'invalid_client_metadata' },
  { field: 'application_type', value: 'service', error: 'invalid_client_metadata' },
  { field: 'id_token_signed_response_alg', value: 'HS256', error: 'invalid_client_metadata' },
  { field: 'id_token_signed_response_alg', value: 'none', error: 'invalid_client_metadata' },
  { field: 'redirect_uris', value: ['http://localhost:8765/callback'], error: 'invalid_redirect_uri' },
];

describe.each(STORE_KINDS)('what the authorization server says it supports (%s)', (kind) => {
  let server: TestServer;
  let openapi: unknown;

  beforeAll(async () => {
    server = await startTestServer(kind, { LOOPBACK_HOSTS: '127.0.0.1,[::1]' });
    const res = await readJson(await fetch(`${server.issuer}/openapi.json`));
    expect(res.status, res.text).toBe(200);
    openapi = res.json;
  });
  afterAll(async () => {
    await server?.close();
  });

  for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
    it(`${path} lists what is supported`, async () => {
      const res = await readJson(await fetch(`${server.issuer}${path}`));
      expect(res.status, res.text).toBe(200);
      expect(res.json).toMatchObject(SUPPORTED);
    });
  }

  describe('the registration schema in /openapi.json', () => {
    const registerOp = () => at(openapi, 'paths', '/api/oauth/register', 'post');
    const field = (...keys: string[]) => at(registerOp(), 'requestBody', 'content', 'application/json', 'schema', 'properties', ...keys);

    it('offers exactly the supported values', () => {
      expect(field('token_endpoint_auth_method', 'enum')).toEqual(['none', 'client_secret_post']);
      expect(field('token_endpoint_auth_method', 'default')).toBe('none');
      expect(field('application_type', 'enum')).toEqual(['native', 'web']);
      expect(field('application_type', 'default')).toBe('native');
      expect(field('grant_types', 'items', 'enum')).toEqual(['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code']);
      expect(field('grant_types', 'default')).toEqual(['authorization_code', 'refresh_token']);
      expect(field('response_types', 'items', 'enum')).toEqual(['code']);
      expect(field('id_token_signed_response_alg', 'enum')).toEqual(['RS256', 'ES256']);
      expect(field('id_token_signed_response_alg', 'default')).toBe('RS256');
      expect(field('redirect_uris', 'maxItems')).toBe(10);
    });

    it('names exactly the configured loopback hosts, and not localhost', () => {
      const prose = field('redirect_uris', 'description');
      expect(prose).toBe(REDIRECT_URIS_PROSE);
      expect(prose).not.toContain('localhost');
      const answered = at(registerOp(), 'responses', '201', 'content', 'application/json', 'schema', 'properties', 'redirect_uris', 'description');
      expect(answered).toBe(REDIRECT_URIS_PROSE);
    });
  });

  describe('registration', () => {
    for (const { field, value, error } of OUTSIDE) {
      it(`refuses ${field} ${JSON.stringify(value)} with 400 ${error}`, async () => {
        const res = await register(server.issuer, { redirect_uris: ['http://127.0.0.1:8765/callback'], [field]: value });
        expect(res.status, JSON.stringify(res.json)).toBe(400);
        expect(res.json.error).toBe(error);
      });
    }

    it('takes every supported value, and a configured loopback host', async () => {
      const res = await register(server.issuer, {
        redirect_uris: ['http://[::1]:8765/callback'],
        token_endpoint_auth_method: 'client_secret_post',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        application_type: 'web',
        id_token_signed_response_alg: 'ES256',
      });
      expect(res.status, JSON.stringify(res.json)).toBe(201);
      expect(res.json).toMatchObject({ token_endpoint_auth_method: 'client_secret_post', application_type: 'web', id_token_signed_response_alg: 'ES256' });
    });
  });
});
