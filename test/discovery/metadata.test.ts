import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJson, type JsonResponse } from '../helpers/bearer.ts';
import { startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { CONTRACT_SCOPES } from '../helpers/contract-scopes.ts';

const AS_PATH = '/.well-known/oauth-authorization-server';
const OIDC_PATH = '/.well-known/openid-configuration';
const PRM_API_PATH = '/.well-known/oauth-protected-resource';
const PRM_MCP_PATH = '/.well-known/oauth-protected-resource/mcp';
const JWKS_PATH = '/.well-known/jwks.json';
const WELL_KNOWN_DOCUMENTS = [AS_PATH, OIDC_PATH, PRM_API_PATH, PRM_MCP_PATH, JWKS_PATH];

/** An origin a browser-based client (the MCP Inspector) runs on. */
const BROWSER_ORIGIN = 'http://localhost:6274';

type Metadata = Record<string, unknown>;

const strings = (v: unknown): string[] => {
  expect(Array.isArray(v) && v.every((s) => typeof s === 'string'), `expected an array of strings, got ${JSON.stringify(v)}`).toBe(true);
  return v as string[];
};

/** How each advertised endpoint is called to show it exists, and what it must answer. */
type Probe = (url: string) => Promise<void>;

const expectJsonError = (res: JsonResponse) => {
  expect(res.status, res.text).toBeGreaterThanOrEqual(400);
  expect(res.status, res.text).toBeLessThan(500);
  expect(res.status, res.text).not.toBe(404);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.json).toEqual({ error: expect.stringMatching(/^[a-z_]+$/), error_description: expect.stringMatching(/\S/) });
};

const emptyPost: Probe = async (url) => expectJsonError(await readJson(await fetch(url, { method: 'POST' })));

const ENDPOINT_PROBES: Record<string, Probe> = {
  authorization_endpoint: async (url) => {
    const res = await fetch(url, { redirect: 'manual' });
    const html = await res.text();
    expect(res.status, html.slice(0, 300)).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('location')).toBeNull();
    expect(html).toMatch(/<!doctype html>/i);
  },
  token_endpoint: emptyPost,
  device_authorization_endpoint: emptyPost,
  revocation_endpoint: emptyPost,
  introspection_endpoint: emptyPost,
  registration_endpoint: emptyPost,
  userinfo_endpoint: async (url) => {
    const res = await readJson(await fetch(url));
    expect(res.status, res.text).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  },
  jwks_uri: async (url) => {
    const res = await readJson(await fetch(url));
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/json/);
    const keys = res.json.keys as Record<string, unknown>[];
    expect(Array.isArray(keys) && keys.length > 0).toBe(true);
    expect(keys.some((k) => k.kty === 'RSA' && (k.alg === undefined || k.alg === 'RS256'))).toBe(true);
    for (const k of keys) {
      expect(typeof k.kid).toBe('string');
      for (const secret of ['d', 'p', 'q', 'dp', 'dq', 'qi']) expect(k[secret], `private member ${secret} published`).toBeUndefined();
    }
  },
};

describe.each(STORE_KINDS)('discovery documents (%s)', (kind) => {
  let server: FlowServer;

  beforeAll(async () => {
    server = await startFlowServer(kind);
  });
  afterAll(() => server.stop());

  async function getJson(path: string, headers: Record<string, string> = {}): Promise<JsonResponse> {
    return readJson(await fetch(`${server.issuer}${path}`, { headers }));
  }

  async function document(path: string): Promise<Metadata> {
    const res = await getJson(path);
    expect(res.status, `${path}: ${res.text}`).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    return res.json;
  }

  describe('authorization server metadata (RFC 8414) and OpenID Connect discovery', () => {
    it('serve the same facts at both well-known paths', async () => {
      expect(await document(OIDC_PATH)).toEqual(await document(AS_PATH));
    });

    it('name the issuer byte for byte as the server’s issuer, with no trailing slash', async () => {
      const meta = await document(AS_PATH);
      expect(meta.issuer).toBe(server.issuer);
      expect(server.issuer.endsWith('/')).toBe(false);
    });

    it('list exactly the 38 scopes of the contract', async () => {
      const scopes = strings((await document(AS_PATH)).scopes_supported);
      expect(CONTRACT_SCOPES).toHaveLength(38);
      expect(new Set(scopes).size).toBe(scopes.length);
      expect([...scopes].sort()).toEqual([...CONTRACT_SCOPES].sort());
    });

    it('advertise what the documented flow needs: code + PKCE S256, public and client_secret_post clients, iss on the redirect', async () => {
      const meta = await document(AS_PATH);
      expect(meta.response_types_supported).toEqual(['code']);
      expect(strings(meta.grant_types_supported)).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token']));
      expect(meta.code_challenge_methods_supported).toEqual(['S256']);
      expect(meta.token_endpoint_auth_methods_supported).toEqual(['none', 'client_secret_post']);
      expect(meta.authorization_response_iss_parameter_supported).toBe(true);
    });

    it('advertise the registration, revocation and introspection endpoints with their client auth methods', async () => {
      const meta = await document(AS_PATH);
      expect(meta.registration_endpoint).toBe(`${server.issuer}/api/oauth/register`);
      expect(meta.revocation_endpoint).toBe(`${server.issuer}/api/oauth/revoke`);
      expect(meta.introspection_endpoint).toBe(`${server.issuer}/api/oauth/introspect`);
      // RFC 8414 §2: when these are omitted the default is client_secret_basic, which Lyceum refuses.
      expect(meta.revocation_endpoint_auth_methods_supported).toEqual(['none', 'client_secret_post']);
      expect(meta.introspection_endpoint_auth_methods_supported).toEqual(['none', 'client_secret_post']);
    });

    it('carry the members OpenID Connect Discovery §3 requires', async () => {
      const meta = await document(OIDC_PATH);
      expect(meta.jwks_uri).toBe(`${server.issuer}${JWKS_PATH}`);
      expect(meta.userinfo_endpoint).toBe(`${server.issuer}/api/oauth/userinfo`);
      expect(strings(meta.subject_types_supported).length).toBeGreaterThan(0);
      expect(strings(meta.id_token_signing_alg_values_supported)).toContain('RS256');
    });

    it('advertise only endpoints that answer (none is a 404)', async () => {
      const meta = await document(AS_PATH);
      const advertised = Object.keys(meta).filter((k) => k.endsWith('_endpoint') || k === 'jwks_uri');
      // An endpoint added to the metadata without a probe here fails this test until it gets one.
      expect(advertised.sort()).toEqual(Object.keys(ENDPOINT_PROBES).sort());
      for (const key of advertised) {
        const url = meta[key] as string;
        expect(url.startsWith(`${server.issuer}/`), `${key} ${url} is not on the issuer's origin`).toBe(true);
        await ENDPOINT_PROBES[key]!(url);
      }
    });

    it('advertise documentation URLs that are served (service_documentation, resource_documentation)', async () => {
      const urls = [(await document(AS_PATH)).service_documentation, (await document(PRM_API_PATH)).resource_documentation, (await document(PRM_MCP_PATH)).resource_documentation].filter(
        (u): u is string => u !== undefined,
      );
      for (const url of urls) {
        expect(url.startsWith(`${server.issuer}/`)).toBe(true);
        const res = await fetch(url);
        expect(res.status, `GET ${url}`).toBe(200);
      }
    });
  });

  describe('protected resource metadata (RFC 9728)', () => {
    it('describes the API at /.well-known/oauth-protected-resource: resource is the issuer, which is its authorization server', async () => {
      const prm = await document(PRM_API_PATH);
      expect(prm.resource).toBe(server.issuer);
      expect(strings(prm.authorization_servers)[0]).toBe(server.issuer);
      expect(prm.bearer_methods_supported).toEqual(['header']);
    });

    it('describes the MCP endpoint at /.well-known/oauth-protected-resource/mcp with resource {issuer}/mcp', async () => {
      const prm = await document(PRM_MCP_PATH);
      expect(prm.resource).toBe(`${server.issuer}/mcp`);
      expect(strings(prm.authorization_servers)[0]).toBe(server.issuer);
    });

    it('lists only scopes the authorization server supports', async () => {
      const supported = new Set(strings((await document(AS_PATH)).scopes_supported));
      for (const path of [PRM_API_PATH, PRM_MCP_PATH]) {
        const prm = await document(path);
        for (const scope of prm.scopes_supported === undefined ? [] : strings(prm.scopes_supported)) {
          expect(supported.has(scope), `${path} lists ${scope}`).toBe(true);
        }
      }
    });
  });

  describe('unknown well-known paths', () => {
    it.each(['/.well-known/foo', '/.well-known/oauth-protected-resource/nope', '/.well-known/oauth-protected-resource/mcp/extra'])('%s is a JSON 404, never an HTML page', async (path) => {
      const res = await getJson(path);
      expect(res.status, res.text).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.text).not.toMatch(/<html/i);
      expect(res.json).toEqual({ error: expect.stringMatching(/\S/), error_description: expect.stringMatching(/\S/) });
    });
  });

  describe('CORS for browser-based clients', () => {
    it.each(WELL_KNOWN_DOCUMENTS)('GET %s from another origin is allowed for any origin', async (path) => {
      const res = await getJson(path, { origin: BROWSER_ORIGIN });
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
    });

    async function preflight(path: string, method: string, requestHeaders?: string): Promise<Response> {
      return fetch(`${server.issuer}${path}`, {
        method: 'OPTIONS',
        headers: {
          origin: BROWSER_ORIGIN,
          'access-control-request-method': method,
          ...(requestHeaders ? { 'access-control-request-headers': requestHeaders } : {}),
        },
      });
    }

    function expectPreflightAllowed(res: Response, method: string, headers: string[]) {
      expect(res.status).toBeGreaterThanOrEqual(200);
      expect(res.status).toBeLessThan(300);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      const methods = (res.headers.get('access-control-allow-methods') ?? '').split(',').map((m) => m.trim().toUpperCase());
      expect(methods).toContain(method);
      const allowed = (res.headers.get('access-control-allow-headers') ?? '').split(',').map((h) => h.trim().toLowerCase());
      for (const h of headers) expect(allowed, `${h} not allowed`).toContain(h);
    }

    it('a preflight for POST /api/oauth/token with authorization, content-type and mcp-protocol-version is allowed', async () => {
      const res = await preflight('/api/oauth/token', 'POST', 'authorization, content-type, mcp-protocol-version');
      expectPreflightAllowed(res, 'POST', ['authorization', 'content-type', 'mcp-protocol-version']);
    });

    it.each(['/api/oauth/register', '/api/oauth/revoke', '/api/oauth/introspect', '/api/oauth/userinfo'])('a preflight for POST %s is allowed', async (path) => {
      expectPreflightAllowed(await preflight(path, 'POST', 'authorization, content-type'), 'POST', ['authorization', 'content-type']);
    });

    it('a preflight for the MCP protected resource metadata with mcp-protocol-version (sent by the MCP SDK) is allowed', async () => {
      expectPreflightAllowed(await preflight(PRM_MCP_PATH, 'GET', 'mcp-protocol-version'), 'GET', ['mcp-protocol-version']);
    });

    it('is not granted on the browser pages /oauth/authorize and /oauth/sign-in', async () => {
      for (const path of ['/oauth/authorize', '/oauth/sign-in']) {
        const get = await fetch(`${server.issuer}${path}`, { headers: { origin: BROWSER_ORIGIN }, redirect: 'manual' });
        await get.arrayBuffer();
        expect(get.headers.get('access-control-allow-origin'), `GET ${path}`).toBeNull();
        for (const method of ['GET', 'POST']) {
          const pre = await preflight(path, method, 'content-type');
          await pre.arrayBuffer();
          expect(pre.headers.get('access-control-allow-origin'), `OPTIONS ${path} for ${method}`).toBeNull();
        }
      }
    });
  });

  it('the MCP TypeScript SDK discovery order finds a usable authorization server from /mcp', async () => {
    const serverUrl = `${server.issuer}/mcp`;
    // 1. No challenge to read (tokenless requests are anonymous): the path-specific PRM first.
    const prmRes = await readJson(await fetch(`${server.issuer}${PRM_MCP_PATH}`, { headers: { 'mcp-protocol-version': '2025-06-18' } }));
    expect(prmRes.status, prmRes.text).toBe(200);
    const prm = prmRes.json;
    // 2. resource must be same-origin with, and a path prefix of, the server URL (VS Code: equal to it).
    const resource = new URL(prm.resource as string);
    expect(resource.origin).toBe(new URL(serverUrl).origin);
    expect(serverUrl.startsWith(prm.resource as string)).toBe(true);
    expect(prm.resource).toBe(serverUrl);
    const as = strings(prm.authorization_servers)[0]!;
    // 3. RFC 8414 metadata of that authorization server; issuer must equal authorization_servers[0].
    const asPath = new URL(as).pathname.replace(/\/$/, '');
    const metaRes = await readJson(await fetch(`${new URL(as).origin}${AS_PATH}${asPath}`, { headers: { 'mcp-protocol-version': '2025-06-18' } }));
    expect(metaRes.status, metaRes.text).toBe(200);
    const meta = metaRes.json;
    expect(meta.issuer).toBe(as);
    // 4. Required members.
    for (const key of ['issuer', 'authorization_endpoint', 'token_endpoint', 'registration_endpoint']) {
      expect(typeof meta[key], key).toBe('string');
    }
    expect(strings(meta.response_types_supported)).toContain('code');
    expect(strings(meta.code_challenge_methods_supported)).toContain('S256');
    const oidc = await document(OIDC_PATH);
    expect(typeof oidc.jwks_uri).toBe('string');
    expect(strings(oidc.subject_types_supported).length).toBeGreaterThan(0);
    expect(strings(oidc.id_token_signing_alg_values_supported).length).toBeGreaterThan(0);
    // 5. The scopes it would ask for are all supported.
    const requested = prm.scopes_supported === undefined ? strings(meta.scopes_supported) : strings(prm.scopes_supported);
    const supported = new Set(strings(meta.scopes_supported));
    expect(requested.filter((s) => !supported.has(s))).toEqual([]);
  });
});
