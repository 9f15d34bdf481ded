import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPE_NAMES } from '../../src/access/scopes.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { expectBody, postRaw } from '../helpers/flow.ts';

/** A raw POST to the registration endpoint: the body is sent as given, byte for byte. */
async function post(server: TestServer, body: string, contentType: string | undefined = 'application/json', headers: Record<string, string> = {}) {
  const res = await fetch(`${server.issuer}/api/oauth/register`, {
    method: 'POST',
    headers: { ...(contentType ? { 'content-type': contentType } : {}), ...headers },
    body,
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json: json as Record<string, unknown> };
}

const postJson = (server: TestServer, body: unknown, headers: Record<string, string> = {}) => post(server, JSON.stringify(body), 'application/json', headers);

/** Paths of every JSON null inside a value (a null breaks the MCP SDK's response parser). */
function nullPaths(value: unknown, path = '$'): string[] {
  if (value === null) return [path];
  if (Array.isArray(value)) return value.flatMap((v, i) => nullPaths(v, `${path}[${i}]`));
  if (typeof value === 'object') return Object.entries(value as object).flatMap(([k, v]) => nullPaths(v, `${path}.${k}`));
  return [];
}

/** RFC 7591 §3.2.2 error body: exactly error and error_description, readable, no internals. */
function expectErrorBody(res: { headers: Headers; text: string; json: Record<string, unknown> }, error?: string) {
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.json, res.text).toBeTypeOf('object');
  expect(Object.keys(res.json).sort()).toEqual(['error', 'error_description']);
  expect(res.json.error).toBeTypeOf('string');
  expect((res.json.error as string).length).toBeGreaterThan(0);
  if (error) expect(res.json.error).toBe(error);
  expect(res.json.error_description).toBeTypeOf('string');
  expect((res.json.error_description as string).trim().length).toBeGreaterThan(0);
  // No stack trace or source location leaks into the body.
  expect(res.text).not.toMatch(/\n\s+at |node_modules|\.ts:\d+|\.js:\d+|stack/);
}

interface Accepted {
  name: string;
  body: Record<string, unknown>;
  /** The redirect_uris the response must echo; defaults to body.redirect_uris. */
  kept?: string[];
  /** Further fields the response must carry, exactly. */
  echo?: Record<string, unknown>;
  /** Fields the response must not carry. */
  absent?: string[];
}

const ACCEPTED: Accepted[] = [
  { name: '127.0.0.1 with a port', body: { redirect_uris: ['http://127.0.0.1:8765/callback'] } },
  { name: '127.0.0.1 without a port', body: { redirect_uris: ['http://127.0.0.1/callback'] } },
  { name: '[::1] with a port', body: { redirect_uris: ['http://[::1]:8765/callback'] } },
  { name: '[::1] without a port', body: { redirect_uris: ['http://[::1]/callback'] } },
  { name: 'localhost with a port', body: { redirect_uris: ['http://localhost:8765/callback'] } },
  { name: 'localhost without a port', body: { redirect_uris: ['http://localhost/callback'] } },
  { name: 'a loopback URI with a query', body: { redirect_uris: ['http://127.0.0.1:8765/callback?session=a1&x=y'] } },
  { name: 'a loopback URI with the root path', body: { redirect_uris: ['http://127.0.0.1:33418/'] } },
  {
    name: 'several loopback URIs, kept in the order sent',
    body: { redirect_uris: ['http://localhost:9000/b', 'http://127.0.0.1/a', 'http://[::1]:1/c?d=e'] },
  },
  {
    name: 'mcp-remote (client_uri, software_id, scope, no application_type)',
    body: {
      client_name: 'MCP CLI Proxy',
      client_uri: 'https://github.com/geelen/mcp-remote',
      software_id: '2e6dc280-f3c3-4e01-99a7-8181dbd1d23d',
      software_version: '0.1.29',
      redirect_uris: ['http://localhost:3334/oauth/callback'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      scope: 'courses:read students:read',
    },
    echo: {
      client_name: 'MCP CLI Proxy',
      client_uri: 'https://github.com/geelen/mcp-remote',
      software_id: '2e6dc280-f3c3-4e01-99a7-8181dbd1d23d',
      software_version: '0.1.29',
      scope: 'courses:read students:read',
      application_type: 'native',
    },
  },
  {
    name: 'VS Code (https callbacks mixed with loopback: only the loopback ones are kept)',
    body: {
      client_name: 'Visual Studio Code',
      redirect_uris: ['https://insiders.vscode.dev/redirect', 'https://vscode.dev/redirect', 'http://127.0.0.1/', 'http://127.0.0.1:33418/'],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    },
    kept: ['http://127.0.0.1/', 'http://127.0.0.1:33418/'],
    echo: { client_name: 'Visual Studio Code', application_type: 'native' },
  },
  {
    name: 'MCP Inspector (web)',
    body: {
      client_name: 'MCP Inspector',
      client_uri: 'https://github.com/modelcontextprotocol/inspector',
      redirect_uris: ['http://localhost:6274/oauth/callback', 'http://localhost:6274/oauth/callback/debug'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    },
    echo: { client_name: 'MCP Inspector' },
  },
  {
    name: 'MCP Inspector (CLI)',
    body: { client_name: 'MCP Inspector', redirect_uris: ['http://127.0.0.1:6276/oauth/callback'], token_endpoint_auth_method: 'none' },
  },
  {
    name: 'Claude Code (random localhost port, no application_type)',
    body: {
      client_name: 'Claude Code (lyceum)',
      redirect_uris: ['http://localhost:54545/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
    echo: { application_type: 'native' },
  },
  {
    name: 'the MCP TS SDK v2 (application_type native)',
    body: { client_name: 'sdk-app', redirect_uris: ['http://localhost:3000/callback'], application_type: 'native', scope: 'openid profile' },
    echo: { application_type: 'native', scope: 'openid profile' },
  },
  { name: 'Codex CLI', body: { client_name: 'Codex', redirect_uris: ['http://127.0.0.1:41234/callback/3f2a'] } },
  { name: 'Gemini CLI', body: { redirect_uris: ['http://localhost:7777/oauth/callback'] } },
  {
    name: 'optional fields sent as null (treated as absent)',
    body: { redirect_uris: ['http://127.0.0.1/cb'], client_name: null, client_uri: null, scope: null, application_type: null, grant_types: null },
    absent: ['client_name', 'client_uri', 'scope'],
    echo: { application_type: 'native' },
  },
  {
    name: 'unknown fields (ignored, not echoed)',
    body: {
      redirect_uris: ['http://127.0.0.1/cb'],
      frobnicate: true,
      jwks: { keys: [] },
      extra: { nested: [1, null] },
      'urn:example:ext': 'x',
    },
    absent: ['frobnicate', 'jwks', 'extra', 'urn:example:ext'],
  },
  {
    // Only the server issues secrets, and only to client_secret_post clients.
    name: 'a client_secret the client made up (ignored, no secret issued)',
    body: { redirect_uris: ['http://127.0.0.1/cb'], client_secret: 'chosen-by-the-client', client_secret_expires_at: 0 },
    absent: ['client_secret', 'client_secret_expires_at'],
  },
  {
    name: 'a scope with all 38 scope names',
    body: { redirect_uris: ['http://127.0.0.1/cb'], scope: SCOPE_NAMES.join(' ') },
    echo: { scope: SCOPE_NAMES.join(' ') },
  },
  {
    name: 'a scope with unknown names (dropped, known ones kept)',
    body: { redirect_uris: ['http://127.0.0.1/cb'], scope: 'courses:read admin made:up students:read' },
    echo: { scope: 'courses:read students:read' },
  },
  {
    name: 'a scope made only of unknown names (no scope echoed)',
    body: { redirect_uris: ['http://127.0.0.1/cb'], scope: 'admin superuser' },
    absent: ['scope'],
  },
  {
    name: 'only the authorization_code grant',
    body: { redirect_uris: ['http://127.0.0.1/cb'], grant_types: ['authorization_code'] },
    echo: { grant_types: ['authorization_code'] },
  },
  {
    name: 'a confidential client (client_secret_post)',
    body: { client_name: 'Local daemon', redirect_uris: ['http://127.0.0.1:8080/cb'], token_endpoint_auth_method: 'client_secret_post' },
    echo: { token_endpoint_auth_method: 'client_secret_post', client_secret_expires_at: 0 },
  },
];

interface Refused {
  why: string;
  /** A JSON value, or a raw string sent as is. */
  body: unknown;
  raw?: boolean;
  contentType?: string;
  status: number;
  /** Omitted where only "some error code" is required. */
  error?: string;
}

const uris = (...u: unknown[]) => ({ client_name: 'refused', redirect_uris: u, token_endpoint_auth_method: 'none' });
const valid = { redirect_uris: ['http://127.0.0.1/cb'] };

const REFUSED: Refused[] = [
  { why: 'an https redirect URI needs an integration arranged with support', body: uris('https://app.example.com/callback'), status: 400, error: 'invalid_redirect_uri' },
  {
    why: 'https callbacks only (VS Code without its loopback entries) leave no loopback URI',
    body: uris('https://vscode.dev/redirect', 'https://insiders.vscode.dev/redirect'),
    status: 400,
    error: 'invalid_redirect_uri',
  },
  { why: 'loopback URIs use the http scheme, not https', body: uris('https://127.0.0.1:8443/cb'), status: 400, error: 'invalid_redirect_uri' },
  { why: 'a private-use (custom) scheme is not a loopback URI', body: uris('com.example.app:/cb'), status: 400, error: 'invalid_redirect_uri' },
  { why: 'a host other than the loopback names (example.com)', body: uris('http://example.com/cb'), status: 400, error: 'invalid_redirect_uri' },
  { why: '127.0.0.2 is not one of the loopback hosts 127.0.0.1, [::1], localhost', body: uris('http://127.0.0.2/cb'), status: 400, error: 'invalid_redirect_uri' },
  { why: '0.0.0.0 is not a loopback host', body: uris('http://0.0.0.0:8080/cb'), status: 400, error: 'invalid_redirect_uri' },
  { why: 'a name that merely starts with localhost is another host', body: uris('http://localhost.example.com/cb'), status: 400, error: 'invalid_redirect_uri' },
  { why: '127.1 is not written as one of the loopback hosts', body: uris('http://127.1/cb'), status: 400, error: 'invalid_redirect_uri' },
  { why: 'user information in the URI (user@)', body: uris('http://user@127.0.0.1/cb'), status: 400, error: 'invalid_redirect_uri' },
  { why: 'user information in the URI (user:password@)', body: uris('http://user:secret@localhost:8080/cb'), status: 400, error: 'invalid_redirect_uri' },
  { why: 'a redirect URI must not have a fragment', body: uris('http://127.0.0.1/cb#frag'), status: 400, error: 'invalid_redirect_uri' },
  { why: 'a redirect URI must not have even an empty fragment', body: uris('http://127.0.0.1/cb#'), status: 400, error: 'invalid_redirect_uri' },
  { why: 'a relative URI is not absolute', body: uris('/callback'), status: 400, error: 'invalid_redirect_uri' },
  { why: 'an empty string is not a URI', body: uris(''), status: 400, error: 'invalid_redirect_uri' },
  { why: 'redirect_uris is required for the code grant (missing)', body: { client_name: 'x' }, status: 400, error: 'invalid_redirect_uri' },
  { why: 'redirect_uris must not be empty', body: uris(), status: 400, error: 'invalid_redirect_uri' },
  { why: 'redirect_uris must be an array, not a string', body: { redirect_uris: 'http://127.0.0.1/cb' }, status: 400, error: 'invalid_redirect_uri' },
  { why: 'redirect_uris must be an array, not an object', body: { redirect_uris: { 0: 'http://127.0.0.1/cb' } }, status: 400, error: 'invalid_redirect_uri' },
  { why: 'redirect_uris entries must be strings', body: uris(42, { uri: 'http://127.0.0.1/cb' }), status: 400, error: 'invalid_redirect_uri' },
  {
    why: 'more than 10 redirect URIs are refused',
    body: uris(...Array.from({ length: 11 }, (_, i) => `http://127.0.0.1/cb${i}`)),
    status: 400,
    error: 'invalid_redirect_uri',
  },
  { why: 'client_secret_basic is not offered (none or client_secret_post only)', body: { ...valid, token_endpoint_auth_method: 'client_secret_basic' }, status: 400, error: 'invalid_client_metadata' },
  { why: 'private_key_jwt is not offered', body: { ...valid, token_endpoint_auth_method: 'private_key_jwt' }, status: 400, error: 'invalid_client_metadata' },
  { why: 'token_endpoint_auth_method must be a string', body: { ...valid, token_endpoint_auth_method: 1 }, status: 400, error: 'invalid_client_metadata' },
  { why: 'the implicit grant is not supported', body: { ...valid, grant_types: ['authorization_code', 'implicit'] }, status: 400, error: 'invalid_client_metadata' },
  { why: 'the client_credentials grant is not supported', body: { ...valid, grant_types: ['client_credentials'] }, status: 400, error: 'invalid_client_metadata' },
  { why: 'grant_types without authorization_code cannot use this server', body: { ...valid, grant_types: ['refresh_token'] }, status: 400, error: 'invalid_client_metadata' },
  { why: 'grant_types must be an array of strings', body: { ...valid, grant_types: 'authorization_code' }, status: 400, error: 'invalid_client_metadata' },
  { why: 'response_type token (implicit) is not supported', body: { ...valid, response_types: ['token'] }, status: 400, error: 'invalid_client_metadata' },
  { why: 'response_types must be exactly ["code"]', body: { ...valid, response_types: ['code', 'token'] }, status: 400, error: 'invalid_client_metadata' },
  { why: 'client_name must be a string, not a number', body: { ...valid, client_name: 42 }, status: 400, error: 'invalid_client_metadata' },
  { why: 'client_name must not be empty', body: { ...valid, client_name: '' }, status: 400, error: 'invalid_client_metadata' },
  { why: 'client_uri must be an absolute URL', body: { ...valid, client_uri: 'not a url' }, status: 400, error: 'invalid_client_metadata' },
  { why: 'client_uri must be http(s), not javascript:', body: { ...valid, client_uri: 'javascript:alert(1)' }, status: 400, error: 'invalid_client_metadata' },
  { why: 'application_type must be native or web', body: { ...valid, application_type: 'desktop' }, status: 400, error: 'invalid_client_metadata' },
  { why: 'scope must be a string', body: { ...valid, scope: ['courses:read'] }, status: 400, error: 'invalid_client_metadata' },
  { why: 'malformed JSON cannot be parsed', body: '{"redirect_uris": ["http://127.0.0.1/cb"', raw: true, status: 400, error: 'invalid_request' },
  { why: 'an empty JSON body is not client metadata', body: '', raw: true, status: 400, error: 'invalid_request' },
  { why: 'a JSON array is not a metadata object', body: [valid], status: 400, error: 'invalid_request' },
  { why: 'a JSON string is not a metadata object', body: 'http://127.0.0.1/cb', status: 400, error: 'invalid_request' },
  { why: 'JSON null is not a metadata object', body: 'null', raw: true, status: 400, error: 'invalid_request' },
  {
    why: 'a body over the 16384-byte limit is too large',
    body: { ...valid, client_name: 'big', padding: 'x'.repeat(16_384) },
    status: 413,
    error: 'invalid_request',
  },
];

/** RFC 7591 §3.1: the registration request is "application/json"; anything else is refused. */
const WRONG_CONTENT_TYPES: { why: string; contentType: string | undefined; body: string }[] = [
  { why: 'XML is not a registration format', contentType: 'application/xml', body: '<client><redirect_uri>http://127.0.0.1/cb</redirect_uri></client>' },
  { why: 'text/plain is not JSON, even when the text is JSON', contentType: 'text/plain', body: JSON.stringify(valid) },
  {
    why: 'an HTML-form body is not JSON, even when it spells valid metadata',
    contentType: 'application/x-www-form-urlencoded',
    body: 'redirect_uris=http%3A%2F%2F127.0.0.1%2Fcb&redirect_uris=http%3A%2F%2F127.0.0.1%2Fcb2&client_name=form',
  },
  { why: 'multipart form data is not JSON', contentType: 'multipart/form-data; boundary=x', body: '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\nb\r\n--x--\r\n' },
];

describe.each(STORE_KINDS)('POST /api/oauth/register (%s)', (kind) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(async () => {
    await server?.close();
  });

  describe('accepted registrations', () => {
    for (const { name, body, kept, echo, absent } of ACCEPTED)
      it(`accepts ${name}`, async () => {
        const before = (await server.deps.store.clients.list()).length;
        const res = await postJson(server, body);
        expect(res.status, res.text).toBe(201);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        expect(res.headers.get('cache-control')).toBe('no-store');
        const json = res.json;

        expect(nullPaths(json)).toEqual([]);
        expect(json.client_id).toBeTypeOf('string');
        expect((json.client_id as string).length).toBeGreaterThan(0);
        expect(json.redirect_uris).toEqual(kept ?? body.redirect_uris);

        const expected = {
          grant_types: (body.grant_types as string[] | null | undefined) ?? ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: (body.token_endpoint_auth_method as string | undefined) ?? 'none',
          application_type: (body.application_type as string | null | undefined) ?? 'native',
          ...echo,
        };
        expect(json).toMatchObject(expected);

        // Numbers are JSON numbers, never numeric strings.
        expect(json.client_id_issued_at).toBeTypeOf('number');
        expect(Number.isInteger(json.client_id_issued_at)).toBe(true);
        expect(Math.abs((json.client_id_issued_at as number) - Date.now() / 1000)).toBeLessThan(300);

        if (expected.token_endpoint_auth_method === 'client_secret_post') {
          expect(json.client_secret).toBeTypeOf('string');
          expect((json.client_secret as string).length).toBeGreaterThanOrEqual(32);
          expect(json.client_secret_expires_at).toBe(0);
        } else {
          expect(json).not.toHaveProperty('client_secret');
          expect(json).not.toHaveProperty('client_secret_expires_at');
        }
        for (const field of absent ?? []) expect(json).not.toHaveProperty(field);

        // What was echoed is what was stored.
        const stored = await server.deps.store.clients.find(json.client_id as string);
        expect(stored?.metadata.redirect_uris).toEqual(json.redirect_uris);
        expect(stored?.metadata.token_endpoint_auth_method).toBe(json.token_endpoint_auth_method);
        expect((await server.deps.store.clients.list()).length).toBe(before + 1);
      });

    it('issues a different client_id and client_secret on every registration', async () => {
      const body = { redirect_uris: ['http://127.0.0.1/cb'], token_endpoint_auth_method: 'client_secret_post' };
      const a = await postJson(server, body);
      const b = await postJson(server, body);
      expect([a.status, b.status]).toEqual([201, 201]);
      expect(a.json.client_id).not.toBe(b.json.client_id);
      expect(a.json.client_secret).not.toBe(b.json.client_secret);
    });

    it('keeps no secret in the store in clear text', async () => {
      const res = await postJson(server, { redirect_uris: ['http://127.0.0.1/cb'], token_endpoint_auth_method: 'client_secret_post' });
      const stored = await server.deps.store.clients.find(res.json.client_id as string);
      expect(stored?.secretHash).toBeTypeOf('string');
      expect(stored?.secretHash).not.toBe(res.json.client_secret);
      expect(JSON.stringify(stored)).not.toContain(res.json.client_secret as string);
    });

    it('accepts a body of exactly the size limit', async () => {
      const base = JSON.stringify({ redirect_uris: ['http://127.0.0.1/cb'], padding: '' });
      const body = JSON.stringify({ redirect_uris: ['http://127.0.0.1/cb'], padding: 'x'.repeat(16_384 - base.length) });
      expect(Buffer.byteLength(body)).toBe(16_384);
      const res = await post(server, body);
      expect(res.status, res.text).toBe(201);
    });
  });

  describe('refused registrations', () => {
    for (const { why, body, raw, contentType, status, error } of REFUSED)
      it(`refuses with ${status} ${error ?? ''}: ${why}`, async () => {
        const before = (await server.deps.store.clients.list()).length;
        const res = await post(server, raw ? (body as string) : JSON.stringify(body), contentType ?? 'application/json');
        expect(res.status, res.text).toBe(status);
        expectErrorBody(res, error);
        expect((await server.deps.store.clients.list()).length).toBe(before);
      });

    for (const { why, contentType, body } of WRONG_CONTENT_TYPES)
      it(`refuses a body that is not application/json: ${why}`, async () => {
        const before = (await server.deps.store.clients.list()).length;
        const res = await post(server, body, contentType);
        expect(res.status, res.text).toBeGreaterThanOrEqual(400);
        expect(res.status, res.text).toBeLessThan(500);
        expectErrorBody(res);
        expect((await server.deps.store.clients.list()).length).toBe(before);
      });

    it('refuses a JSON body sent without any Content-Type', async () => {
      const before = (await server.deps.store.clients.list()).length;
      const res = await fetch(`${server.issuer}/api/oauth/register`, { method: 'POST', body: new Uint8Array(Buffer.from(JSON.stringify(valid))) });
      const text = await res.text();
      expect(res.status, text).toBeGreaterThanOrEqual(400);
      expect(res.status, text).toBeLessThan(500);
      expectErrorBody({ headers: res.headers, text, json: JSON.parse(text) as Record<string, unknown> });
      expect((await server.deps.store.clients.list()).length).toBe(before);
    });

    it('leaves the stored clients exactly as they were after every kind of refused registration', async () => {
      const before = (await server.deps.store.clients.list()).map((c) => c.id).sort();
      for (const r of REFUSED) await post(server, r.raw ? (r.body as string) : JSON.stringify(r.body), r.contentType ?? 'application/json');
      for (const r of WRONG_CONTENT_TYPES) await post(server, r.body, r.contentType);
      const after = (await server.deps.store.clients.list()).map((c) => c.id).sort();
      expect(after).toEqual(before);
    });

    it('does not echo the refused URI list of a mixed registration', async () => {
      const res = await postJson(server, uris('https://evil.example/cb', 'com.example.app:/cb', 'http://127.0.0.1:9/ok'));
      expect(res.status).toBe(201);
      expect(res.json.redirect_uris).toEqual(['http://127.0.0.1:9/ok']);
      expect(res.text).not.toContain('evil.example');
    });
  });

  describe('CORS', () => {
    it('answers a preflight from the MCP Inspector origin with access-control-allow-origin *', async () => {
      const res = await fetch(`${server.issuer}/api/oauth/register`, {
        method: 'OPTIONS',
        headers: {
          origin: 'http://localhost:6274',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });
      expect(res.status).toBeGreaterThanOrEqual(200);
      expect(res.status).toBeLessThan(300);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-methods') ?? '').toMatch(/\bPOST\b/);
      expect((res.headers.get('access-control-allow-headers') ?? '').toLowerCase()).toMatch(/\bcontent-type\b/);
    });

    it('lets a browser client read both a success and an error response', async () => {
      const origin = { origin: 'http://localhost:6274' };
      const ok = await postJson(server, valid, origin);
      expect(ok.status).toBe(201);
      expect(ok.headers.get('access-control-allow-origin')).toBe('*');
      const bad = await postJson(server, uris('https://app.example.com/cb'), origin);
      expect(bad.status).toBe(400);
      expect(bad.headers.get('access-control-allow-origin')).toBe('*');
    });
  });
});

describe.each(STORE_KINDS)('POST /api/oauth/register with LOOPBACK_HOSTS restricted to IP literals (%s)', (kind) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(kind, { LOOPBACK_HOSTS: '127.0.0.1,[::1]' });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('refuses localhost because the setting allows only 127.0.0.1 and [::1]', async () => {
    const res = await postJson(server, { redirect_uris: ['http://localhost:6274/oauth/callback'] });
    expect(res.status).toBe(400);
    expectErrorBody(res, 'invalid_redirect_uri');
  });

  it('still accepts the IP literals and keeps them from a mixed list', async () => {
    const res = await postJson(server, { redirect_uris: ['http://localhost/cb', 'http://127.0.0.1/cb', 'http://[::1]:9/cb'] });
    expect(res.status).toBe(201);
    expect(res.json.redirect_uris).toEqual(['http://127.0.0.1/cb', 'http://[::1]:9/cb']);
  });
});

/**
 * The registration route itself (RFC 7591 §3): what it accepts as a request
 * and the headers of its answer. The body limit and the rate limit are
 * options given when the route is registered, so each of those tests starts
 * its own server.
 */
const METADATA = { redirect_uris: ['http://127.0.0.1/cb'] };

/** A JSON registration body of exactly `bytes` bytes (padded with an unknown field, which is ignored). */
function bodyOfSize(bytes: number): string {
  const empty = JSON.stringify({ ...METADATA, padding: '' });
  const body = JSON.stringify({ ...METADATA, padding: 'x'.repeat(bytes - empty.length) });
  expect(Buffer.byteLength(body)).toBe(bytes);
  return body;
}

describe.each(STORE_KINDS)('the registration route (%s)', (kind) => {
  let server: TestServer;
  const register = (body: string, contentType = 'application/json') => postRaw(`${server.issuer}/api/oauth/register`, body, contentType);

  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('answers a registration with Pragma: no-cache beside Cache-Control: no-store (RFC 7591 §3.2.1)', async () => {
    const res = await register(JSON.stringify(METADATA));
    expect(res.status, res.text).toBe(201);
    expect({ cacheControl: res.headers.get('cache-control'), pragma: res.headers.get('pragma') }).toEqual({ cacheControl: 'no-store', pragma: 'no-cache' });
  });

  it('refuses with 415 a media type that only mentions application/json in a parameter', async () => {
    const res = await register(JSON.stringify(METADATA), 'text/plain; profile="application/json"');
    expectBody(res, 415, { error: 'invalid_request', error_description: 'Send the client metadata as application/json' });
  });
});

describe.each(STORE_KINDS)('the registration route’s limits, on a server of its own (%s)', (kind) => {
  it('takes a body of exactly REGISTRATION_BODY_LIMIT bytes and refuses one byte more with 413', async () => {
    const server = await startTestServer(kind, { REGISTRATION_BODY_LIMIT: '1024' });
    try {
      const url = `${server.issuer}/api/oauth/register`;
      const atLimit = await postRaw(url, bodyOfSize(1024), 'application/json');
      expect(atLimit.status, atLimit.text).toBe(201);
      expectBody(await postRaw(url, bodyOfSize(1025), 'application/json'), 413, {
        error: 'invalid_request',
        error_description: 'The request body is too large.',
      });
    } finally {
      await server.close();
    }
  });

  it('refuses registrations over RATE_LIMIT_REGISTER_PER_MINUTE from one address with 429 too_many_requests', async () => {
    const server = await startTestServer(kind, { RATE_LIMIT_REGISTER_PER_MINUTE: '2' });
    try {
      const url = `${server.issuer}/api/oauth/register`;
      const statuses = [];
      for (let i = 0; i < 2; i++) statuses.push((await postRaw(url, JSON.stringify(METADATA), 'application/json')).status);
      expect(statuses).toEqual([201, 201]);
      const over = await postRaw(url, JSON.stringify(METADATA), 'application/json');
      expect({ status: over.status, error: over.json.error }, over.text).toEqual({ status: 429, error: 'too_many_requests' });
      expect(over.headers.get('retry-after')).toMatch(/^\d+$/);
    } finally {
      await server.close();
    }
  });
});
