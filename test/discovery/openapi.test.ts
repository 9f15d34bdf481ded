import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJson } from '../helpers/bearer.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { CONTRACT_SCOPES } from '../helpers/contract-scopes.ts';

/** Collections the contract's MCP and catalog serve anonymously: their lists have a public view. */
const PUBLIC_LISTS = ['/courses', '/lecturers', '/membership-plans', '/digital-products', '/events', '/posts', '/pages'];

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

type Json = Record<string, any>;
type Operation = { path: string; method: string; op: Json };

function operations(doc: Json): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const method of METHODS) if (item[method]) out.push({ path, method, op: item[method] });
  }
  return out;
}

describe.each(STORE_KINDS)('/openapi.json (%s)', (kind) => {
  let server: TestServer;
  let doc: Json;
  let scheme: { name: string; value: Json };

  beforeAll(async () => {
    server = await startTestServer(kind);
    const res = await readJson(await fetch(`${server.issuer}/openapi.json`));
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    doc = res.json;
    const oauth2 = Object.entries<Json>(doc.components?.securitySchemes ?? {}).filter(([, s]) => s.type === 'oauth2');
    expect(oauth2).toHaveLength(1);
    scheme = { name: oauth2[0]![0], value: oauth2[0]![1] };
  });
  afterAll(() => server.close());

  const op = (path: string, method: string): Json => {
    const found = doc.paths[path]?.[method];
    expect(found, `${method.toUpperCase()} ${path} is described`).toBeDefined();
    return found;
  };

  it('is OpenAPI 3.1.x for this origin and passes swagger-parser validation', async () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.servers).toEqual([{ url: server.issuer }]);
    // validate() dereferences in place: give it a copy.
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeDefined();
  });

  it('has the oauth2 authorization code scheme on this issuer’s endpoints, with all 38 scopes', () => {
    const flow = scheme.value.flows?.authorizationCode;
    expect(flow).toBeDefined();
    expect(flow.authorizationUrl).toBe(`${server.issuer}/oauth/authorize`);
    expect(flow.tokenUrl).toBe(`${server.issuer}/api/oauth/token`);
    expect(flow.refreshUrl).toBe(`${server.issuer}/api/oauth/token`);
    expect(CONTRACT_SCOPES).toHaveLength(38);
    expect(Object.keys(flow.scopes).sort()).toEqual([...CONTRACT_SCOPES].sort());
    for (const [scope, description] of Object.entries(flow.scopes)) expect(description, scope).toMatch(/\S/);
  });

  it('gives every /api/v1 operation a security requirement naming its scopes', () => {
    const api = operations(doc).filter((o) => o.path.startsWith('/api/v1/'));
    expect(api.length).toBeGreaterThan(50);
    for (const { path, method, op: o } of api) {
      const where = `${method.toUpperCase()} ${path}`;
      expect(Array.isArray(o.security), where).toBe(true);
      const named = (o.security as Json[]).filter((req) => Object.keys(req).length > 0);
      expect(named, where).toHaveLength(1);
      const scopes = named[0]![scheme.name] as string[];
      expect(scopes?.length, where).toBeGreaterThan(0);
      for (const s of scopes) expect(CONTRACT_SCOPES, `${where} names ${s}`).toContain(s);
    }
  });

  it('marks operations with a public view with an empty requirement {} beside the scopes, and only those', async () => {
    for (const list of PUBLIC_LISTS) {
      const security = op(`/api/v1${list}`, 'get').security as Json[];
      expect(security, list).toContainEqual({});
    }
    for (const { path, method, op: o } of operations(doc).filter((x) => x.path.startsWith('/api/v1/'))) {
      const anonymous = (o.security as Json[]).some((req) => Object.keys(req).length === 0);
      const where = `${method.toUpperCase()} ${path}`;
      if (method !== 'get') {
        expect(anonymous, `${where} changes data: never anonymous`).toBe(false);
        continue;
      }
      // What the server does for a caller without a token decides: 401 means token-only.
      const res = await fetch(`${server.issuer}${path.replace(/\{[^}]+\}/g, 'nonexistent')}`);
      await res.arrayBuffer();
      expect(res.headers.get('www-authenticate'), `${where}: a tokenless request is never challenged`).toBeNull();
      expect(anonymous, `${where} answered ${res.status} without a token`).toBe(res.status !== 401);
    }
  });

  describe('OAuth endpoints', () => {
    const formFields = (o: Json): Json => {
      const media = o.requestBody?.content?.['application/x-www-form-urlencoded'];
      expect(media, 'form body described').toBeDefined();
      return media.schema.properties;
    };

    it('describe registration with its JSON body and the 201 answer', () => {
      const o = op('/api/oauth/register', 'post');
      expect(o.tags).toEqual(['oauth']);
      expect(o.summary).toMatch(/\S/);
      expect(o.description).toMatch(/loopback/);
      const body = o.requestBody.content['application/json'].schema;
      for (const field of ['client_name', 'application_type', 'redirect_uris', 'token_endpoint_auth_method']) expect(body.properties, field).toHaveProperty(field);
      expect(body.properties.token_endpoint_auth_method.enum).toEqual(['none', 'client_secret_post']);
      expect(o.responses['201'].content['application/json'].schema.properties).toHaveProperty('client_id');
      expect(o.responses).toHaveProperty('400');
    });

    it('describe the authorization endpoint with its query parameters and the redirect', () => {
      const o = op('/oauth/authorize', 'get');
      expect(o.tags).toEqual(['oauth']);
      const params = Object.fromEntries((o.parameters as Json[]).filter((p) => p.in === 'query').map((p) => [p.name, p]));
      for (const name of ['response_type', 'client_id', 'redirect_uri', 'code_challenge', 'code_challenge_method']) expect(params[name]?.required, name).toBe(true);
      for (const name of ['scope', 'state', 'resource', 'nonce', 'prompt', 'max_age']) expect(params, name).toHaveProperty(name);
      expect(o.responses['302'].description).toMatch(/code[\s\S]*iss/);
    });

    it('describe the token, revocation and introspection form bodies', () => {
      const token = op('/api/oauth/token', 'post');
      for (const field of ['grant_type', 'code', 'redirect_uri', 'client_id', 'code_verifier', 'refresh_token', 'resource']) expect(formFields(token), field).toHaveProperty(field);
      expect(Object.keys(token.responses['200'].content['application/json'].schema.properties)).toEqual(
        expect.arrayContaining(['access_token', 'token_type', 'expires_in', 'refresh_token', 'scope', 'id_token']),
      );
      for (const field of ['token', 'client_id', 'token_type_hint']) expect(formFields(op('/api/oauth/revoke', 'post')), field).toHaveProperty(field);
      for (const field of ['token', 'client_id']) expect(formFields(op('/api/oauth/introspect', 'post')), field).toHaveProperty(field);
      expect(op('/api/oauth/introspect', 'post').responses['200'].content['application/json'].schema.properties).toHaveProperty('active');
      for (const path of ['/api/oauth/token', '/api/oauth/revoke', '/api/oauth/introspect']) {
        const o = op(path, 'post');
        expect(o.tags, path).toEqual(['oauth']);
        expect(o.description, path).toMatch(/\S/);
        expect(o.responses, path).toHaveProperty('401');
      }
    });

    it('describe UserInfo (GET and POST) as needing openid', () => {
      for (const method of ['get', 'post']) {
        const o = op('/api/oauth/userinfo', method);
        expect(o.tags).toEqual(['oauth']);
        expect(o.security).toEqual([{ [scheme.name]: ['openid'] }]);
        expect(Object.keys(o.responses['200'].content['application/json'].schema.properties)).toEqual(
          expect.arrayContaining(['sub', 'name', 'preferred_username', 'updated_at', 'school_role', 'email', 'email_verified']),
        );
      }
    });

    it('describe the discovery documents', () => {
      for (const path of [
        '/.well-known/oauth-authorization-server',
        '/.well-known/openid-configuration',
        '/.well-known/oauth-protected-resource',
        '/.well-known/oauth-protected-resource/mcp',
        '/.well-known/jwks.json',
      ]) {
        const o = op(path, 'get');
        expect(o.tags, path).toEqual(['discovery']);
        expect(o.summary, path).toMatch(/\S/);
      }
      expect(op('/.well-known/oauth-authorization-server', 'get').responses['200'].content['application/json'].schema.properties).toHaveProperty('registration_endpoint');
      expect(op('/auth.md', 'get').responses['200'].content).toHaveProperty('text/markdown');
      expect(op('/pricing.md', 'get').responses['200'].content).toHaveProperty('text/markdown');
      expect(op('/llms.txt', 'get').responses['200'].content).toHaveProperty('text/plain');
    });

    it('leave out the browser pages, their forms and assets', () => {
      for (const path of ['/', '/assets/lyceum.css', '/oauth/sign-in', '/oauth/sign-out', '/oauth/authorize/decision', '/account/apps', '/account/apps/disconnect', '/openapi.json']) {
        expect(doc.paths[path], path).toBeUndefined();
      }
    });
  });

  describe('documentation never validates: the endpoints still judge their own input', () => {
    const post = (path: string, body?: string, type?: string) =>
      fetch(`${server.issuer}${path}`, { method: 'POST', ...(type ? { headers: { 'content-type': type } } : {}), ...(body !== undefined ? { body } : {}) }).then(readJson);

    it('token, revocation and introspection refuse JSON bodies with their own invalid_request', async () => {
      for (const path of ['/api/oauth/token', '/api/oauth/revoke', '/api/oauth/introspect']) {
        const res = await post(path, '["grant_type"]', 'application/json');
        expect(res.status, path).toBe(400);
        expect(res.json, path).toEqual({ error: 'invalid_request', error_description: 'Send the parameters as application/x-www-form-urlencoded' });
      }
    });

    it('a form missing every parameter reaches the token endpoint’s own checks', async () => {
      const res = await post('/api/oauth/token', 'grant_type=authorization_code', 'application/x-www-form-urlencoded');
      expect(res.status).toBe(401);
      expect(res.json.error).toBe('invalid_client');
    });

    it('registration without a body is still 415, and a JSON array is its own invalid_request', async () => {
      expect((await post('/api/oauth/register')).status).toBe(415);
      const res = await post('/api/oauth/register', '[]', 'application/json');
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ error: 'invalid_request', error_description: 'The registration body must be a JSON object.' });
    });

    it('the authorization endpoint without parameters answers its HTML error page', async () => {
      const res = await fetch(`${server.issuer}/oauth/authorize`, { redirect: 'manual' });
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await res.text()).toMatch(/client_id is required/);
    });
  });
});
