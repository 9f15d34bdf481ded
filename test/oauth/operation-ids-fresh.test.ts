/**
 * The operationIds of the authorization server's and the account's
 * operations in /openapi.json, as a client generator names its methods from
 * them: they must stay put; and the security each operation states. Written
 * by hand. The server is started inside the test, because the operations are
 * declared while it is built.
 */
import { describe, expect, it } from 'vitest';
import { readJson } from '../helpers/bearer.ts';
import { startTestServer } from '../helpers/server.ts';

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

/** OpenAPI 3.0 §4.8.10: [] is public; {} beside the scopes makes them optional (an anonymous view). */
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
      const served = Object.fromEntries(Object.keys(IDS).map((where) => {
        const [method, path] = where.split(' ') as [string, string];
        return [where, paths[path]?.[method]?.operationId];
      }));
      expect(served).toEqual(IDS);
      const security = Object.fromEntries(Object.keys(SECURITY).map((where) => {
        const [method, path] = where.split(' ') as [string, string];
        return [where, paths[path]?.[method]?.security];
      }));
      expect(security).toEqual(SECURITY);
    } finally {
      await server.close();
    }
  });
});
