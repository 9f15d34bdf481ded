/**
 * The served /openapi.json against the rules a linter of OpenAPI documents
 * applies by default, checked here directly: every operation has a unique
 * operationId; every operation states its security, naming only the scheme
 * the document defines (or `[]` for the public ones); every operation lists a
 * 4XX answer; the license is the project's. The expectations are written by
 * hand: which operations are public is the contract's word, not read from
 * the product's declarations.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJson } from '../helpers/bearer.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Operations anyone may call without a token: OAuth endpoints, discovery, documents, probes. */
const PUBLIC = [
  'post /api/oauth/register',
  'get /oauth/authorize',
  'post /api/oauth/token',
  'post /api/oauth/device_authorization',
  'get /oauth/device',
  'post /api/oauth/revoke',
  'post /api/oauth/introspect',
  'get /.well-known/oauth-authorization-server',
  'get /.well-known/openid-configuration',
  'get /.well-known/oauth-protected-resource',
  'get /.well-known/oauth-protected-resource/mcp',
  'get /.well-known/jwks.json',
  'get /auth.md',
  'get /llms.txt',
  'get /pricing.md',
  'get /healthz',
  'get /readyz',
];

/** A few operationIds as a client generator would name its methods; they must stay put. */
const KNOWN_IDS: Record<string, string> = {
  'get /api/v1/courses': 'listCourses',
  'get /api/v1/courses/{id}': 'getCourse',
  'post /api/v1/courses': 'createCourse',
  'patch /api/v1/courses/{id}': 'updateCourse',
  'delete /api/v1/courses/{id}': 'deleteCourse',
  'get /api/v1/membership-plans': 'listMembershipPlans',
  'post /api/oauth/token': 'requestToken',
  'get /api/oauth/userinfo': 'getUserInfo',
  'post /api/oauth/userinfo': 'postUserInfo',
};

type Json = Record<string, any>;
type Operation = { where: string; op: Json };

function operations(doc: Json): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const method of METHODS) if (item[method]) out.push({ where: `${method} ${path}`, op: item[method] });
  }
  return out;
}

describe.each(STORE_KINDS)('/openapi.json passes the recommended lint rules (%s)', (kind) => {
  let server: TestServer;
  let doc: Json;
  let ops: Operation[];

  beforeAll(async () => {
    server = await startTestServer(kind);
    const res = await readJson(await fetch(`${server.issuer}/openapi.json`));
    expect(res.status, res.text).toBe(200);
    doc = res.json;
    ops = operations(doc);
    expect(ops.length).toBeGreaterThan(100);
  });
  afterAll(() => server.close());

  it('gives every operation an operationId, unique in the document and camelCase', () => {
    const ids = ops.map(({ where, op }) => {
      expect(op.operationId, where).toMatch(/^[a-z][A-Za-z0-9]*$/);
      return op.operationId as string;
    });
    expect(new Set(ids).size).toBe(ids.length);
    const byOperation = Object.fromEntries(ops.map(({ where, op }) => [where, op.operationId]));
    for (const [where, id] of Object.entries(KNOWN_IDS)) expect(byOperation[where], where).toBe(id);
  });

  it('states the security of every operation, naming only the scheme and scopes the document defines', () => {
    // No top-level requirement: each operation says its own.
    expect(doc.security).toBeUndefined();
    const schemes = doc.components?.securitySchemes ?? {};
    for (const { where, op } of ops) {
      expect(Array.isArray(op.security), `${where} has security`).toBe(true);
      for (const requirement of op.security as Json[]) {
        for (const [name, scopes] of Object.entries<string[]>(requirement)) {
          expect(schemes, `${where} names ${name}`).toHaveProperty([name]);
          const defined = Object.keys(schemes[name].flows.authorizationCode.scopes);
          expect(scopes.length, where).toBeGreaterThan(0);
          for (const s of scopes) expect(defined, `${where} needs ${s}`).toContain(s);
        }
      }
    }
  });

  it('marks the public operations with security: [] and no other', () => {
    const present = new Set(ops.map((o) => o.where));
    for (const where of PUBLIC) expect(present.has(where), `${where} is described`).toBe(true);
    for (const { where, op } of ops) {
      if (PUBLIC.includes(where)) expect(op.security, where).toEqual([]);
      else
        expect(
          (op.security as Json[]).some((r) => Object.keys(r).length > 0),
          `${where} names its scopes`,
        ).toBe(true);
    }
  });

  it('lists a 4XX answer for every operation, with the RFC 6749 error body where it is JSON', async () => {
    for (const { where, op } of ops) {
      const clientErrors = Object.keys(op.responses).filter((status) => /^4\d\d$/.test(status));
      expect(clientErrors.length, `${where} has a 4XX response`).toBeGreaterThan(0);
      for (const status of clientErrors) {
        const schema = op.responses[status].content?.['application/json']?.schema;
        if (schema) expect(schema.required, `${where} ${status}`).toEqual(['error', 'error_description']);
      }
    }
    // Even a probe refuses a NUL character with the error body: that 400 is real.
    const res = await readJson(await fetch(`${server.issuer}/healthz?x=%00`));
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('invalid_request');
  });

  it("names the project's license", () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { license: string };
    expect(doc.info.license).toEqual({ name: pkg.license, identifier: pkg.license });
  });
});
