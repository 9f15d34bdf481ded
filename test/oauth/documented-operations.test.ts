/**
 * The token, revocation and introspection endpoints on a server started by
 * the test itself: each route is registered and answers, and each carries its
 * schema, which is what puts the operation and its form parameters into
 * /openapi.json (the schemas document requests; they validate nothing).
 */
import { describe, expect, it } from 'vitest';
import { isActive, obtainTokens, revokeRequest, startFlowServer } from '../helpers/flow.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { readJson } from '../helpers/bearer.ts';
import { startTestServer } from '../helpers/server.ts';

interface Operation {
  summary?: string;
  requestBody?: { content: Record<string, { schema: { properties: Record<string, unknown>; required: string[] } }> };
}

/** The documented form request of an operation: its summary, parameter names and required ones. */
function formRequest(op: Operation | undefined): { summary?: string; params: string[]; required: string[] } | undefined {
  const schema = op?.requestBody?.content['application/x-www-form-urlencoded']?.schema;
  return op && { summary: op.summary, params: Object.keys(schema?.properties ?? {}), required: schema?.required ?? [] };
}

const CLIENT_PARAMS = ['client_id', 'client_secret'];

describe.each(STORE_KINDS)('the OAuth form endpoints of a fresh server (%s)', (kind) => {
  it('serves token, revocation and introspection, and documents each with its form parameters in /openapi.json', async () => {
    const server = await startFlowServer(kind);
    try {
      // The token route: an authorization code becomes tokens (a missing route would be 404).
      const { flow, tokens } = await obtainTokens(server);
      // The introspection route: RFC 7662 §2.2 "active" is true for a live token of the caller.
      expect(await isActive(server, flow, tokens.access_token)).toBe(true);
      // The revocation route: RFC 7009 §2.2 "The authorization server responds with HTTP status code 200".
      const revoked = await revokeRequest(server, flow, tokens.refresh_token!);
      expect({ status: revoked.status, text: revoked.text }).toEqual({ status: 200, text: '' });
      expect(await isActive(server, flow, tokens.access_token)).toBe(false);

      const res = await fetch(`${server.issuer}/openapi.json`);
      expect(res.status).toBe(200);
      const doc = (await res.json()) as { paths: Record<string, { post?: Operation }> };
      expect({
        token: formRequest(doc.paths['/api/oauth/token']?.post),
        revoke: formRequest(doc.paths['/api/oauth/revoke']?.post),
        introspect: formRequest(doc.paths['/api/oauth/introspect']?.post),
        device: formRequest(doc.paths['/api/oauth/device_authorization']?.post),
      }).toEqual({
        token: {
          summary: 'Token endpoint',
          params: ['grant_type', 'device_code', 'code', 'redirect_uri', 'code_verifier', 'refresh_token', 'scope', 'resource', ...CLIENT_PARAMS],
          required: ['grant_type', 'client_id'],
        },
        revoke: { summary: 'Revoke a token', params: ['token', 'token_type_hint', ...CLIENT_PARAMS], required: ['token', 'client_id'] },
        introspect: { summary: 'Introspect a token', params: ['token', 'token_type_hint', ...CLIENT_PARAMS], required: ['token', 'client_id'] },
        device: { summary: 'Device authorization endpoint', params: ['scope', 'resource', ...CLIENT_PARAMS], required: ['client_id'] },
      });
    } finally {
      await server.stop();
    }
  });
});

/**
 * The operationIds of the authorization server's and the account's
 * operations in /openapi.json, as a client generator names its methods from
 * them: they must stay put; and the security each operation states. Written
 * by hand. The server is started inside the test, because the operations are
 * declared while it is built.
 */
const IDS: Record<string, string> = {
  'get /oauth/authorize': 'authorize',
  'post /api/oauth/register': 'registerClient',
  'post /api/oauth/token': 'requestToken',
  'post /api/oauth/revoke': 'revokeToken',
  'post /api/oauth/introspect': 'introspectToken',
  'get /api/oauth/userinfo': 'getUserInfo',
  'post /api/oauth/userinfo': 'postUserInfo',
  'get /api/v1/account': 'getAccount',
  'patch /api/v1/account': 'updateAccount',
  'get /api/v1/courses': 'listCourses',
  'get /api/v1/courses/{id}': 'getCourse',
  'post /api/v1/courses': 'createCourse',
  'patch /api/v1/courses/{id}': 'updateCourse',
  'delete /api/v1/courses/{id}': 'deleteCourse',
};

/** OpenAPI 3.1 §4.8.10: [] is public; {} beside the scopes makes them optional (an anonymous view). */
const SECURITY: Record<string, unknown[]> = {
  'post /api/oauth/token': [],
  'get /api/oauth/userinfo': [{ lyceum_oauth: ['openid'] }],
  'get /api/v1/account': [{ lyceum_oauth: ['account:read'] }],
  'get /api/v1/courses': [{ lyceum_oauth: ['courses:read'] }, {}],
  'post /api/v1/courses': [{ lyceum_oauth: ['courses:write'] }],
  'get /api/v1/students': [{ lyceum_oauth: ['students:read'] }],
};

describe('operationIds and security of the OAuth, account and record operations', () => {
  it('keep the names client generators use, and state the security of each', async () => {
    const server = await startTestServer('sqlite');
    try {
      const res = await readJson(await fetch(`${server.issuer}/openapi.json`));
      expect(res.status, res.text).toBe(200);
      const paths = res.json.paths as Record<string, Record<string, { operationId?: string; security?: unknown[] }>>;
      const served = Object.fromEntries(
        Object.keys(IDS).map((where) => {
          const [method, path] = where.split(' ') as [string, string];
          return [where, paths[path]?.[method]?.operationId];
        }),
      );
      expect(served).toEqual(IDS);
      const security = Object.fromEntries(
        Object.keys(SECURITY).map((where) => {
          const [method, path] = where.split(' ') as [string, string];
          return [where, paths[path]?.[method]?.security];
        }),
      );
      expect(security).toEqual(SECURITY);
    } finally {
      await server.close();
    }
  });
});
