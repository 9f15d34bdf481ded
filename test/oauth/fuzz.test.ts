/**
 * Property-based robustness of every endpoint: arbitrary, malformed and
 * hostile input never yields a 5xx, never leaks an internal error, and JSON
 * endpoints always answer 4xx with an RFC 6749 §5.2 error object. After each
 * endpoint's run the server still registers a client normally.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPE_NAMES } from '../../src/access/scopes.ts';
import { sessionCookieName } from '../../src/web/interaction/session.ts';
import { authorizeUrl, pkcePair, postForm, register } from '../helpers/oauth.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { parseForms, UserAgent } from '../helpers/user-agent.ts';

const NUM_RUNS = 150;
const RUN_OPTIONS = { numRuns: NUM_RUNS, plugins: [fc.interruptAfterTimeLimit(45_000)] };
const TEST_TIMEOUT = 60_000;
const REDIRECT_URI = 'http://127.0.0.1/callback';

/* ------------------------------------------------------------------ requests */

interface Req {
  method: string;
  /** Path and query, as sent. */
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

interface Res {
  status: number;
  headers: Headers;
  text: string;
}

/** Every request goes through here: no redirect following, body read in full. */
async function send(issuer: string, req: Req): Promise<Res> {
  const init: RequestInit = { method: req.method, headers: req.headers, redirect: 'manual' };
  if (req.body !== undefined && req.method !== 'GET' && req.method !== 'HEAD') init.body = typeof req.body === 'string' ? req.body : Buffer.from(req.body);
  const res = await fetch(`${issuer}${req.path}`, init);
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/* ------------------------------------------------------------- the oracles */

/** A V8 stack frame: "at fn (file:///x.ts:1:2)", "at /x.js:1:2", "at node:internal/...:1:2". */
const STACK_FRAME = /\bat\s+(?:async\s+)?(?:[^\s()]+\s+)?\(?(?:file:\/\/|node:|\/)[^\s()]*:\d+:\d+/;
/** Internal error codes and driver names that must stay in the log. */
const INTERNALS = /FST_ERR|ERR_INVALID_CHAR|SQLITE_|SqliteError|DatabaseError|"statusCode":\s*5\d\d|violates|syntax error at/;
/** Node's own HTTP parser answers an oversized header block with 431 and no body, before the app runs. */
const NODE_HEADER_TOO_LARGE = 431;

function describeReq(req: Req): string {
  const body = req.body === undefined ? '' : typeof req.body === 'string' ? req.body : `<${req.body.length} bytes>`;
  return `${req.method} ${req.path.slice(0, 300)} ${JSON.stringify(req.headers).slice(0, 300)} ${JSON.stringify(body.slice(0, 300))}`;
}

function checkCommon(req: Req, res: Res): void {
  const what = `${describeReq(req)} → ${res.status} ${res.text.slice(0, 400)}`;
  expect(res.status, what).toBeLessThan(500);
  expect(res.text, what).not.toMatch(STACK_FRAME);
  expect(res.text, what).not.toContain('Error:');
  expect(res.text, what).not.toMatch(INTERNALS);
  if ((res.headers.get('content-type') ?? '').includes('text/html')) {
    // The markup payloads among the inputs must come back escaped, never as live markup.
    expect(res.text, what).not.toMatch(/<script>alert\(1\)|<img src=x onerror=alert\(1\)>/i);
  }
}

/** JSON endpoints: every 4xx is application/json with {error, error_description}. */
function checkJsonEndpoint(req: Req, res: Res): void {
  checkCommon(req, res);
  if (res.status < 400 || res.status === NODE_HEADER_TOO_LARGE || req.method === 'HEAD') return;
  const what = `${describeReq(req)} → ${res.status} ${res.text.slice(0, 400)}`;
  expect(res.headers.get('content-type') ?? '', what).toMatch(/^application\/json/);
  let body: unknown;
  expect(() => (body = JSON.parse(res.text)), what).not.toThrow();
  expect(body, what).toEqual(expect.objectContaining({ error: expect.any(String), error_description: expect.any(String) }));
  expect((body as { error: string }).error.length, what).toBeGreaterThan(0);
}

/** Browser endpoints: every 4xx is an HTML page. */
function checkHtmlEndpoint(req: Req, res: Res): void {
  checkCommon(req, res);
  if (res.status < 400 || res.status === NODE_HEADER_TOO_LARGE || req.method === 'HEAD') return;
  expect(res.headers.get('content-type') ?? '', `${describeReq(req)} → ${res.status}`).toMatch(/^text\/html/);
}

/**
 * A redirect goes to this origin, or to the registered loopback redirect URI
 * (any port, RFC 8252 §7.3) carrying iss (RFC 9207): never anywhere else.
 */
function checkRedirect(issuer: string, req: Req, res: Res, allowClient: boolean): void {
  if (res.status < 300 || res.status >= 400) return;
  const what = `${describeReq(req)} → ${res.status} location ${res.headers.get('location')}`;
  const location = res.headers.get('location');
  expect(location, what).toBeTruthy();
  const url = new URL(location!, issuer);
  if (url.origin === issuer) return;
  expect(allowClient, what).toBe(true);
  expect(`${url.protocol}//${url.hostname}${url.pathname}`, what).toBe(REDIRECT_URI);
  expect(url.hash, what).toBe('');
  expect(url.searchParams.getAll('iss'), what).toEqual([issuer]);
}

/* -------------------------------------------------------------- arbitraries */

/** Inputs are kept free of the markers the oracles look for, so a reflected input is never mistaken for a leak. */
const noMarkers = (s: string) => !s.includes('Error:') && !STACK_FRAME.test(s) && !INTERNALS.test(s);

const NASTY = [
  '',
  ' ',
  '%',
  '%%',
  '%zz',
  '%00',
  '\u0000',
  'a\u0000b',
  '\r\n',
  '\n',
  '\t',
  '+',
  '&',
  '=',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  '"\'><img src=x onerror=alert(1)>',
  "' OR '1'='1",
  '; DROP TABLE clients; --',
  'null',
  'undefined',
  'true',
  '0',
  '-1',
  'NaN',
  '1e309',
  '9'.repeat(30),
  '[]',
  '{}',
  '[object Object]',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '💥',
  '\uD83D',
  '\uDC00',
  'é',
  '\uFEFF',
  '\u202E',
  'Ω≈ç√∫',
  '中文',
  REDIRECT_URI,
  'http://127.0.0.1:1/callback',
  'http://127.0.0.1:65536/callback',
  'http://localhost/callback',
  'http://[::1]/callback',
  'https://evil.example/callback',
  'http://127.0.0.1/callback#frag',
  'http://user@127.0.0.1/callback',
  '//evil.example',
  'javascript:alert(1)',
  'S256',
  'plain',
  'code',
  'token',
  'id_token',
  'authorization_code',
  'refresh_token',
  'client_credentials',
  'password',
  'openid',
  'openid courses:read',
  'none',
  'login',
  'consent',
  'none login',
  'approve',
  'deny',
  'access_token',
  'refresh_token',
  'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
  'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
  'lyc_at_x',
  'lyc_rt_x',
  'lyc_ac_x',
  'lyc_client_x',
  'lyc_cs_x',
];

const longString = (max: number) => fc.tuple(fc.integer({ min: Math.min(500, max), max }), fc.constantFrom('a', '%', 'é', '💥', '\u0000', ' ', '/')).map(([n, c]) => c.repeat(n));

/** Any string, from printable ASCII to lone surrogates and NUL. */
const anyText = (long = 6000): fc.Arbitrary<string> =>
  fc
    .oneof(
      { weight: 3, arbitrary: fc.string() },
      { weight: 2, arbitrary: fc.string({ unit: 'grapheme' }) },
      { weight: 2, arbitrary: fc.string({ unit: 'binary' }) },
      { weight: 4, arbitrary: fc.constantFrom(...NASTY) },
      { weight: 1, arbitrary: longString(long) },
    )
    .filter(noMarkers);

/** A header value undici will send: printable ASCII only. */
const headerText = fc
  .oneof(fc.string({ unit: 'binary-ascii' }), fc.constantFrom('', 'x', '=', ';', ',', '"', '%00', 'a=b; c=d', '\\'))
  .map((s) => s.replace(/[^\x20-\x7e]/g, '').trim())
  .filter(noMarkers);

const CONTENT_TYPES = [
  'application/x-www-form-urlencoded',
  'application/x-www-form-urlencoded; charset=utf-8',
  'application/x-www-form-urlencoded; charset=iso-8859-1',
  'APPLICATION/X-WWW-FORM-URLENCODED',
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'application/vnd.api+json',
  'text/plain',
  'text/html',
  'application/xml',
  'multipart/form-data; boundary=----x',
  'multipart/form-data',
  'application/octet-stream',
  'application/jwt',
  '*/*',
  'application/',
  ';',
  'application/x-www-form-urlencoded;;;',
];
const contentType = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...CONTENT_TYPES) }, { weight: 1, arbitrary: headerText });

/** A raw body of any kind. */
const rawBody = fc.oneof(
  anyText(),
  fc.uint8Array({ maxLength: 2000 }),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.string().map((s) => `--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n${s}\r\n--x--`),
);

/** Form fields: [key, value] pairs, keys drawn from the endpoint's own and arbitrary ones, repeats included. */
function formPairs(keys: readonly string[], values: fc.Arbitrary<string>): fc.Arbitrary<[string, string][]> {
  const key = fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...keys) }, { weight: 1, arbitrary: anyText(300) });
  return fc.oneof(fc.constant<[string, string][]>([]), fc.array(fc.tuple(key, values), { minLength: 1, maxLength: 8 }));
}

/** Lone surrogates replaced, so that encodeURIComponent accepts the string. */
const wellFormed = (s: string) => s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');

const encodeForm = (pairs: [string, string][]) => {
  const p = new URLSearchParams();
  for (const [k, v] of pairs) p.append(k, v);
  return p.toString();
};

/** A form body, a JSON body or a raw body, with a matching or an arbitrary content type. */
function postBody(pairs: fc.Arbitrary<[string, string][]>): fc.Arbitrary<{ headers: Record<string, string>; body: string | Uint8Array }> {
  return fc.oneof(
    { weight: 6, arbitrary: pairs.map((p) => ({ headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: encodeForm(p) })) },
    {
      weight: 2,
      arbitrary: pairs.map((p) => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(Object.fromEntries(p)) })),
    },
    { weight: 2, arbitrary: fc.tuple(contentType, pairs).map(([ct, p]) => ({ headers: { 'content-type': ct }, body: encodeForm(p) })) },
    { weight: 2, arbitrary: fc.tuple(contentType, rawBody).map(([ct, body]) => ({ headers: { 'content-type': ct }, body })) },
    { weight: 1, arbitrary: rawBody.map((body) => ({ headers: {}, body })) },
  );
}

const scopeString = fc.oneof(
  fc.subarray([...SCOPE_NAMES]).map((s) => s.join(' ')),
  fc.array(fc.oneof(fc.constantFrom(...SCOPE_NAMES), anyText(200)), { maxLength: 6 }).map((s) => s.join(' ')),
);

/**
 * Mutations of a valid request's fields: a value replaced, a character slipped
 * in (NUL, non-Latin-1, a line break...), cut short, upper-cased, or the field
 * sent twice.
 */
interface Mutation {
  index: number;
  op: 'replace' | 'inject' | 'truncate' | 'upper' | 'repeat';
  text: string;
  char: string;
  pos: number;
}

const mutations: fc.Arbitrary<Mutation[]> = fc.array(
  fc.record({
    index: fc.nat(),
    op: fc.constantFrom<Mutation['op']>('replace', 'inject', 'inject', 'truncate', 'upper', 'repeat'),
    text: anyText(2000),
    char: fc.constantFrom('\u0000', '\u0000', '💥', '💥', 'é', '中', '\n', '\r', ' ', '%', '"', '<', '\uD800', '\u202E'),
    pos: fc.nat(),
  }),
  { minLength: 0, maxLength: 3 },
);

function mutate(fields: [string, string][], ms: Mutation[]): [string, string][] {
  const out = fields.map(([k, v]): [string, string] => [k, v]);
  for (const m of ms) {
    if (out.length === 0) break;
    const i = m.index % out.length;
    const [k, v] = out[i]!;
    const at = m.pos % (v.length + 1);
    if (m.op === 'replace') out[i] = [k, m.text];
    if (m.op === 'inject') out[i] = [k, v.slice(0, at) + m.char + v.slice(at)];
    if (m.op === 'truncate') out[i] = [k, v.slice(0, at)];
    if (m.op === 'upper') out[i] = [k, v.toUpperCase()];
    if (m.op === 'repeat') out.push([k, v]);
  }
  return out;
}

/** How fields travel: mostly as a form, sometimes as JSON or under an arbitrary content type. */
const encoding = fc.oneof(
  { weight: 6, arbitrary: fc.constant<string | null>('application/x-www-form-urlencoded') },
  { weight: 2, arbitrary: fc.constant<string | null>(null) },
  { weight: 2, arbitrary: contentType.map((c): string | null => c) },
);

/** Encodes fields as a body; a null encoding means JSON. */
function encodeBody(fields: [string, string][], type: string | null): { headers: Record<string, string>; body: string } {
  if (type === null) return { headers: { 'content-type': 'application/json' }, body: JSON.stringify(Object.fromEntries(fields)) };
  return { headers: { 'content-type': type }, body: encodeForm(fields) };
}

/* ------------------------------------------------------------------ fixture */

/** One operation of the platform API, as /openapi.json describes it. */
interface Operation {
  method: string;
  /** Path template, e.g. /api/v1/courses/{id}. */
  template: string;
  pathParams: string[];
  queryParams: string[];
  /** Property names of the JSON request body, when it has one. */
  bodyProps: string[];
}

interface Fixture {
  server: TestServer;
  issuer: string;
  user: { email: string; password: string; id: string };
  publicClientId: string;
  confidential: { clientId: string; clientSecret: string };
  /** Tokens and a (spent) code of a real authorization, so that valid values appear among the garbage. */
  accessToken: string;
  refreshToken: string;
  usedCode: string;
  challenge: string;
  verifier: string;
  /** An owner's access token with every scope. */
  ownerToken: string;
  /** Cookies of a signed-in browser (session + CSRF secret) and a CSRF token valid with them. */
  signedInCookie: string;
  signedInCsrf: string;
  /** Cookie and CSRF token of a browser that is not signed in. */
  anonymousCookie: string;
  anonymousCsrf: string;
  /** The /api/v1 operations the server documents. */
  operations: Operation[];
  /** Names of the MCP tools. */
  mcpTools: string[];
}

/** Runs the browser step and the code exchange; returns the token response. */
async function obtainTokens(issuer: string, ua: UserAgent, user: { email: string; password: string }, clientId: string, scope: string) {
  const { verifier, challenge } = pkcePair();
  const params = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: 'http://127.0.0.1:43210/callback',
    scope,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'fuzz',
  };
  const callback = await ua.authorize(authorizeUrl(issuer, params), user);
  const code = callback.searchParams.get('code');
  if (!code) throw new Error(`no code: ${callback.href}`);
  const tokens = await postForm(`${issuer}/api/oauth/token`, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: params.redirect_uri,
    client_id: clientId,
    code_verifier: verifier,
  });
  if (tokens.status !== 200) throw new Error(`token exchange failed: ${tokens.text}`);
  return { params, code, verifier, challenge, json: tokens.json as { access_token: string; refresh_token: string } };
}

async function listOperations(issuer: string): Promise<Operation[]> {
  const doc = (await (await fetch(`${issuer}/openapi.json`)).json()) as {
    paths?: Record<string, Record<string, { parameters?: { name: string; in: string }[]; requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> } }>>;
  };
  const ops: Operation[] = [];
  for (const [template, methods] of Object.entries(doc.paths ?? {})) {
    if (!template.startsWith('/api/v1/')) continue;
    for (const [method, op] of Object.entries(methods)) {
      ops.push({
        method: method.toUpperCase(),
        template,
        pathParams: [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!),
        queryParams: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
        bodyProps: Object.keys(op.requestBody?.content?.['application/json']?.schema?.properties ?? {}),
      });
    }
  }
  return ops;
}

async function listMcpTools(issuer: string, token: string): Promise<string[]> {
  const res = await fetch(`${issuer}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  const text = await res.text();
  const json = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? '{}');
  const tools = (JSON.parse(json) as { result?: { tools?: { name: string }[] } }).result?.tools ?? [];
  return tools.map((t) => t.name);
}

async function setUp(server: TestServer): Promise<Fixture> {
  const issuer = server.issuer;
  const user = await server.addUser('owner');
  const pub = await register(issuer, { client_name: 'Fuzz CLI', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' });
  const conf = await register(issuer, { client_name: 'Fuzz app', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'client_secret_post' });
  if (pub.status !== 201 || conf.status !== 201) throw new Error('fixture registration failed');
  const publicClientId = pub.json.client_id as string;

  const ua = new UserAgent(issuer);
  const first = await obtainTokens(issuer, ua, user, publicClientId, 'openid profile email courses:read');
  const owner = await obtainTokens(issuer, ua, user, publicClientId, SCOPE_NAMES.join(' '));

  // The signed-in browser's consent page gives a CSRF token that goes with its cookies.
  const consent = await ua.navigate(authorizeUrl(issuer, first.params));
  if ('redirect' in consent) throw new Error('expected the consent page');
  const signedInCsrf = parseForms(consent.html).find((f) => f.action === '/oauth/authorize/decision')?.fields._csrf;
  if (!signedInCsrf) throw new Error('no CSRF token on the consent page');

  const anon = await fetch(`${issuer}/oauth/sign-in`);
  const anonymousCsrf = parseForms(await anon.text()).find((f) => f.action === '/oauth/sign-in')?.fields._csrf;
  if (!anonymousCsrf) throw new Error('no CSRF token on the sign-in page');
  const anonymousCookie = anon.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');

  return {
    server,
    issuer,
    user,
    publicClientId,
    confidential: { clientId: conf.json.client_id as string, clientSecret: conf.json.client_secret as string },
    accessToken: first.json.access_token,
    refreshToken: first.json.refresh_token,
    usedCode: first.code,
    challenge: first.challenge,
    verifier: first.verifier,
    ownerToken: owner.json.access_token,
    signedInCookie: ua.cookieHeader(),
    signedInCsrf,
    anonymousCookie,
    anonymousCsrf,
    operations: await listOperations(issuer),
    mcpTools: await listMcpTools(issuer, owner.json.access_token),
  };
}

/** The server still works: a normal registration answers 201 with a client_id. */
async function expectHealthy(issuer: string): Promise<void> {
  const r = await register(issuer, { client_name: 'After fuzzing', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' });
  expect(r.status).toBe(201);
  expect(r.json.client_id).toMatch(/^lyc_client_/);
}

/* -------------------------------------------------------------------- tests */

describe.each(STORE_KINDS)('fuzzing every endpoint (%s)', (kind) => {
  let f: Fixture;

  beforeAll(async () => {
    // Rate limits off: the fuzz sends far more registrations and sign-ins than a person would.
    f = await setUp(await startTestServer(kind, { RATE_LIMIT_REGISTER_PER_MINUTE: '0', RATE_LIMIT_SIGN_IN_PER_MINUTE: '0' }));
  });

  afterAll(async () => {
    await f?.server.close();
  });

  /** Values that sometimes are the real thing, so the fuzz gets past the first checks. */
  const valueFor = (pick: (fx: Fixture) => string[]) =>
    fc.oneof(
      { weight: 3, arbitrary: anyText() },
      {
        weight: 2,
        arbitrary: fc
          .constant(0)
          .map(() => pick(f))
          .chain((v) => fc.constantFrom(...v)),
      },
    );

  const runEndpoint = async (reqs: fc.Arbitrary<Req>, check: (req: Req, res: Res) => void) => {
    await fc.assert(
      fc.asyncProperty(reqs, async (req) => {
        check(req, await send(f.issuer, req));
      }),
      RUN_OPTIONS,
    );
    await expectHealthy(f.issuer);
  };

  it(
    'POST /api/oauth/register',
    async () => {
      const uriLike = fc.oneof(
        fc.constantFrom(
          'http://127.0.0.1/cb',
          'http://127.0.0.1:8765/callback',
          'http://localhost/x',
          'http://[::1]:9/a?b=c',
          'https://app.example/cb',
          'http://127.0.0.1/cb#f',
          'http://u:p@127.0.0.1/',
          'http://127.0.0.1.evil.example/',
          'com.example.app:/cb',
          'http://127.0.0.1/\u0000',
        ),
        fc.webUrl(),
        anyText(3000),
      );
      const json = fc.jsonValue({ maxDepth: 3 });
      const field = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ weight: 3, arbitrary: arb }, { weight: 1, arbitrary: json });
      const metadata = fc
        .tuple(
          fc.record(
            {
              redirect_uris: field(fc.array(fc.oneof(uriLike, json), { maxLength: 12 })),
              token_endpoint_auth_method: field(fc.constantFrom('none', 'client_secret_post', 'client_secret_basic', 'private_key_jwt', '')),
              grant_types: field(fc.array(fc.constantFrom('authorization_code', 'refresh_token', 'implicit', 'client_credentials', 'password'))),
              response_types: field(fc.array(fc.constantFrom('code', 'token', 'id_token', 'code id_token'))),
              application_type: field(fc.constantFrom('native', 'web', 'browser')),
              client_name: field(anyText()),
              scope: field(fc.oneof(scopeString, anyText())),
              client_uri: field(uriLike),
              logo_uri: field(uriLike),
              tos_uri: field(uriLike),
              policy_uri: field(uriLike),
              software_id: field(anyText()),
              software_version: field(anyText()),
              contacts: field(fc.array(anyText(300), { maxLength: 12 })),
              jwks_uri: field(uriLike),
            },
            { requiredKeys: [] },
          ),
          fc.dictionary(anyText(100), json, { maxKeys: 4 }),
        )
        .map(([m, extra]) => ({ ...extra, ...m }));
      const jsonContentType = fc.constantFrom('application/json', 'application/json; charset=utf-8', 'Application/JSON', 'application/json;');
      const huge = fc.integer({ min: 16_000, max: 200_000 }).map((n) => 'x'.repeat(n));
      const path = '/api/oauth/register';
      const reqs: fc.Arbitrary<Req> = fc.oneof(
        fc.tuple(jsonContentType, fc.jsonValue()).map(([ct, v]) => ({ method: 'POST', path, headers: { 'content-type': ct }, body: JSON.stringify(v) })),
        fc.tuple(jsonContentType, metadata).map(([ct, m]) => ({ method: 'POST', path, headers: { 'content-type': ct }, body: JSON.stringify(m) })),
        anyText().map((s) => ({ method: 'POST', path, headers: { 'content-type': 'application/json' }, body: s })),
        huge.map((s) => ({
          method: 'POST',
          path,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ redirect_uris: [REDIRECT_URI], client_name: s }),
        })),
        huge.map((s) => ({ method: 'POST', path, headers: { 'content-type': 'application/json' }, body: `"${s}"` })),
        postBody(formPairs(['redirect_uris', 'client_name', 'token_endpoint_auth_method'], anyText())).map((b) => ({ method: 'POST', path, ...b })),
      );
      await runEndpoint(reqs, (req, res) => {
        checkJsonEndpoint(req, res);
        if (res.status === 201) expect(JSON.parse(res.text)).toMatchObject({ client_id: expect.stringMatching(/^lyc_client_/) });
        else expect(res.status, describeReq(req)).toBeGreaterThanOrEqual(400);
      });
    },
    TEST_TIMEOUT,
  );

  const AUTHORIZE_KEYS = [
    'response_type',
    'client_id',
    'redirect_uri',
    'scope',
    'state',
    'nonce',
    'code_challenge',
    'code_challenge_method',
    'resource',
    'prompt',
    'max_age',
    'request',
    'request_uri',
    'response_mode',
    'login_hint',
    'claims',
  ] as const;

  /** The authorization request's parameters: a valid base (or not), some removed, garbage appended (repeats included). */
  const authorizeParams = (extraKeys: string[] = []) =>
    fc.record({
      base: fc.constantFrom<'public' | 'confidential' | 'none'>('public', 'public', 'confidential', 'none'),
      drop: fc.subarray([...AUTHORIZE_KEYS], { maxLength: 2 }),
      mutations,
      pairs: formPairs(
        [...AUTHORIZE_KEYS, ...extraKeys],
        fc.oneof(
          { weight: 4, arbitrary: anyText(3000) },
          { weight: 1, arbitrary: scopeString },
          {
            weight: 2,
            arbitrary: fc
              .constant(0)
              .chain(() => fc.constantFrom(f.publicClientId, f.confidential.clientId, 'http://127.0.0.1:5555/callback', f.challenge, 'S256', 'code', f.issuer, `${f.issuer}/mcp`)),
          },
        ),
      ),
    });

  /** A valid authorization request for one of the fixture's clients (or none), fields dropped, mutated, garbage appended. */
  const buildAuthorizeParams = (p: { base: 'public' | 'confidential' | 'none'; drop: string[]; mutations: Mutation[]; pairs: [string, string][] }) => {
    const base: Record<string, string> =
      p.base === 'none'
        ? {}
        : {
            response_type: 'code',
            client_id: p.base === 'public' ? f.publicClientId : f.confidential.clientId,
            redirect_uri: 'http://127.0.0.1:5555/callback',
            scope: 'openid courses:read',
            code_challenge: f.challenge,
            code_challenge_method: 'S256',
            state: 'st',
          };
    for (const k of p.drop) delete base[k];
    return [...mutate(Object.entries(base), p.mutations), ...p.pairs];
  };

  it(
    'GET /oauth/authorize',
    async () => {
      const reqs: fc.Arbitrary<Req> = fc
        .record({
          params: authorizeParams(),
          raw: fc.option(anyText(2000), { nil: undefined }),
          cookie: fc.constantFrom<'signed-in' | 'anonymous' | 'none' | 'garbage'>('signed-in', 'anonymous', 'none', 'garbage'),
          garbageCookie: headerText,
        })
        .map(({ params, raw, cookie, garbageCookie }) => {
          let query = encodeForm(buildAuthorizeParams(params));
          if (raw !== undefined) query += `&${raw}`;
          const headers: Record<string, string> = {};
          if (cookie === 'signed-in') headers.cookie = f.signedInCookie;
          if (cookie === 'anonymous') headers.cookie = f.anonymousCookie;
          if (cookie === 'garbage') headers.cookie = garbageCookie;
          return { method: 'GET', path: `/oauth/authorize?${query}`, headers };
        });
      await runEndpoint(reqs, (req, res) => {
        checkHtmlEndpoint(req, res);
        checkRedirect(f.issuer, req, res, true);
      });
    },
    TEST_TIMEOUT,
  );

  it(
    'POST /oauth/authorize/decision',
    async () => {
      const reqs: fc.Arbitrary<Req> = fc
        .record({
          params: authorizeParams(['decision', '_csrf']),
          decision: fc.option(fc.oneof(fc.constantFrom('approve', 'deny'), anyText(100)), { nil: undefined }),
          csrf: fc.oneof(fc.constant('valid'), fc.constant('none'), anyText(300)),
          cookie: fc.constantFrom<'signed-in' | 'anonymous' | 'none' | 'garbage'>('signed-in', 'signed-in', 'anonymous', 'none', 'garbage'),
          garbageCookie: headerText,
          encoding: fc.constantFrom('form', 'form', 'form', 'json', 'raw'),
          rawContentType: contentType,
        })
        .map(({ params, decision, csrf, cookie, garbageCookie, encoding, rawContentType }) => {
          const pairs = buildAuthorizeParams(params);
          if (decision !== undefined) pairs.unshift(['decision', decision]);
          if (csrf === 'valid') pairs.unshift(['_csrf', cookie === 'anonymous' ? f.anonymousCsrf : f.signedInCsrf]);
          else if (csrf !== 'none') pairs.unshift(['_csrf', csrf]);
          const headers: Record<string, string> = {};
          if (cookie === 'signed-in') headers.cookie = f.signedInCookie;
          if (cookie === 'anonymous') headers.cookie = f.anonymousCookie;
          if (cookie === 'garbage') headers.cookie = garbageCookie;
          let body: string;
          if (encoding === 'json') {
            headers['content-type'] = 'application/json';
            body = JSON.stringify(Object.fromEntries(pairs));
          } else {
            headers['content-type'] = encoding === 'raw' ? rawContentType : 'application/x-www-form-urlencoded';
            body = encodeForm(pairs);
          }
          return { method: 'POST', path: '/oauth/authorize/decision', headers, body };
        });
      await runEndpoint(reqs, (req, res) => {
        checkHtmlEndpoint(req, res);
        checkRedirect(f.issuer, req, res, true);
      });
    },
    TEST_TIMEOUT,
  );

  it(
    'POST /oauth/sign-in',
    async () => {
      const reqs: fc.Arbitrary<Req> = fc
        .record({
          pairs: formPairs(['_csrf', 'email', 'password', 'return_to'], anyText(2000)),
          mutations,
          csrf: fc.constantFrom('valid', 'valid', 'valid', 'none', 'wrong'),
          credentials: fc.constantFrom('right', 'right', 'right-upper', 'wrong-password', 'none'),
          returnTo: fc.option(
            fc.oneof(
              anyText(3000).map((s) => `/oauth/authorize?${s}`),
              fc.constant(0).map(() => authorizeUrl('', { client_id: f.publicClientId, scope: 'openid' })),
              anyText(),
            ),
            { nil: undefined },
          ),
          cookie: fc.constantFrom<'anonymous' | 'none' | 'garbage'>('anonymous', 'anonymous', 'anonymous', 'none', 'garbage'),
          garbageCookie: headerText,
          encoding: fc.constantFrom('form', 'form', 'form', 'json', 'raw'),
          rawContentType: contentType,
        })
        .map(({ pairs, mutations: ms, csrf, credentials, returnTo, cookie, garbageCookie, encoding, rawContentType }) => {
          const fields: [string, string][] = [];
          if (csrf === 'valid') fields.push(['_csrf', f.anonymousCsrf]);
          if (csrf === 'wrong') fields.push(['_csrf', `${f.anonymousCsrf}x`]);
          if (credentials !== 'none') {
            fields.push(['email', credentials === 'right-upper' ? f.user.email.toUpperCase() : f.user.email]);
            fields.push(['password', credentials === 'wrong-password' ? 'not-the-password' : f.user.password]);
          }
          if (returnTo !== undefined) fields.push(['return_to', returnTo]);
          const sent = [...mutate(fields, ms), ...pairs];
          const headers: Record<string, string> = {};
          if (cookie === 'anonymous') headers.cookie = f.anonymousCookie;
          if (cookie === 'garbage') headers.cookie = garbageCookie;
          let body: string;
          if (encoding === 'json') {
            headers['content-type'] = 'application/json';
            body = JSON.stringify(Object.fromEntries(sent));
          } else {
            headers['content-type'] = encoding === 'raw' ? rawContentType : 'application/x-www-form-urlencoded';
            body = encodeForm(sent);
          }
          return { method: 'POST', path: '/oauth/sign-in', headers, body };
        });
      await runEndpoint(reqs, (req, res) => {
        checkHtmlEndpoint(req, res);
        checkRedirect(f.issuer, req, res, false);
      });
    },
    TEST_TIMEOUT,
  );

  const TOKEN_KEYS = [
    'grant_type',
    'code',
    'redirect_uri',
    'code_verifier',
    'client_id',
    'client_secret',
    'refresh_token',
    'scope',
    'resource',
    'audience',
    'assertion',
    'username',
    'password',
    'token',
    'token_type_hint',
  ];

  /**
   * Posts to a client-authenticated JSON endpoint: a valid request (or none),
   * mutated, with garbage fields appended, under any encoding, sometimes with
   * an Authorization header; or an arbitrary body altogether.
   */
  const clientEndpointReqs = (path: string, bases: (fx: Fixture) => Record<string, string>[], extraValues: string[]) => {
    const values = valueFor((fx) => [
      fx.publicClientId,
      fx.confidential.clientId,
      fx.confidential.clientSecret,
      fx.accessToken,
      fx.refreshToken,
      fx.usedCode,
      fx.verifier,
      'http://127.0.0.1:43210/callback',
      fx.issuer,
      ...extraValues,
    ]);
    const authorization = fc.option(
      fc.oneof(
        fc.constantFrom('Basic', 'Basic !!!', `Basic ${Buffer.from('a:b').toString('base64')}`, 'Bearer x', 'Digest x'),
        fc.constant(0).map(() => `Basic ${Buffer.from(`${f.confidential.clientId}:${f.confidential.clientSecret}`).toString('base64')}`),
        headerText,
      ),
      { nil: undefined },
    );
    const structured = fc
      .record({
        base: fc.option(fc.nat(), { nil: undefined }),
        drop: fc.subarray(TOKEN_KEYS, { maxLength: 1 }),
        mutations,
        pairs: formPairs(TOKEN_KEYS, values),
        type: encoding,
        auth: fc.option(authorization, { nil: undefined, freq: 4 }),
      })
      .map(({ base, drop, mutations: ms, pairs, type, auth }): Req => {
        const all = bases(f);
        const fields = Object.entries(base === undefined ? {} : all[base % all.length]!).filter(([k]) => !drop.includes(k));
        const b = encodeBody([...mutate(fields, ms), ...pairs], type);
        const headers = { ...b.headers };
        if (auth) headers.authorization = auth;
        return { method: 'POST', path, headers, body: b.body };
      });
    const raw = fc.tuple(contentType, rawBody).map(([ct, body]): Req => ({ method: 'POST', path, headers: { 'content-type': ct }, body }));
    return fc.oneof({ weight: 5, arbitrary: structured }, { weight: 1, arbitrary: raw });
  };

  const revocationBases = (fx: Fixture): Record<string, string>[] => [
    { token: fx.accessToken, token_type_hint: 'access_token', client_id: fx.publicClientId },
    { token: fx.refreshToken, client_id: fx.publicClientId },
    { token: 'lyc_at_unknown', client_id: fx.confidential.clientId, client_secret: fx.confidential.clientSecret },
  ];

  it(
    'POST /api/oauth/token',
    async () => {
      const reqs = clientEndpointReqs(
        '/api/oauth/token',
        (fx): Record<string, string>[] => [
          { grant_type: 'refresh_token', refresh_token: fx.refreshToken, client_id: fx.publicClientId },
          {
            grant_type: 'authorization_code',
            code: fx.usedCode,
            redirect_uri: 'http://127.0.0.1:43210/callback',
            client_id: fx.publicClientId,
            code_verifier: fx.verifier,
          },
          {
            grant_type: 'refresh_token',
            refresh_token: 'lyc_rt_unknown',
            client_id: fx.confidential.clientId,
            client_secret: fx.confidential.clientSecret,
            scope: 'openid',
            resource: `${fx.issuer}/mcp`,
          },
        ],
        ['authorization_code', 'refresh_token', 'client_credentials', 'openid courses:read'],
      );
      await runEndpoint(reqs, (req, res) => {
        checkJsonEndpoint(req, res);
        if (res.status === 200) expect(JSON.parse(res.text)).toMatchObject({ access_token: expect.any(String), token_type: 'Bearer' });
      });
    },
    TEST_TIMEOUT,
  );

  it(
    'POST /api/oauth/revoke',
    async () => {
      const reqs = clientEndpointReqs('/api/oauth/revoke', revocationBases, ['access_token', 'refresh_token']);
      await runEndpoint(reqs, checkJsonEndpoint);
    },
    TEST_TIMEOUT,
  );

  it(
    'POST /api/oauth/introspect',
    async () => {
      const reqs = clientEndpointReqs('/api/oauth/introspect', revocationBases, ['access_token', 'refresh_token']);
      await runEndpoint(reqs, (req, res) => {
        checkJsonEndpoint(req, res);
        if (res.status === 200) expect(JSON.parse(res.text)).toMatchObject({ active: expect.any(Boolean) });
      });
    },
    TEST_TIMEOUT,
  );

  it(
    'GET and POST /api/oauth/userinfo',
    async () => {
      const authorization = fc.option(
        fc.oneof(
          fc.constant(0).map(() => `Bearer ${f.accessToken}`),
          fc.constant(0).map(() => `bearer   ${f.accessToken}  `),
          headerText.map((s) => `Bearer ${s}`),
          fc.constantFrom('Bearer', 'Bearer ', 'Basic x', 'Bearer a b', 'Bearer ===', 'DPoP x'),
          headerText,
        ),
        { nil: undefined },
      );
      const query = formPairs(['access_token', 'scope', 'claims'], anyText(1000));
      const reqs: fc.Arbitrary<Req> = fc.tuple(fc.constantFrom('GET', 'POST', 'HEAD'), authorization, query, postBody(formPairs(['access_token', 'claims'], anyText()))).map(([method, auth, q, b]) => {
        const headers: Record<string, string> = method === 'POST' ? { ...b.headers } : {};
        if (auth !== undefined) headers.authorization = auth;
        const qs = encodeForm(q);
        return { method, path: `/api/oauth/userinfo${qs ? `?${qs}` : ''}`, headers, ...(method === 'POST' ? { body: b.body } : {}) };
      });
      await runEndpoint(reqs, checkJsonEndpoint);
    },
    TEST_TIMEOUT,
  );

  it(
    'GET /, GET /oauth/sign-in, the assets and the discovery documents',
    async () => {
      const HTML_PAGES = ['/', '/oauth/sign-in'];
      const JSON_DOCUMENTS = [
        '/.well-known/oauth-authorization-server',
        '/.well-known/openid-configuration',
        '/.well-known/oauth-protected-resource',
        '/.well-known/oauth-protected-resource/mcp',
        '/.well-known/jwks.json',
        '/openapi.json',
      ];
      const TEXT_DOCUMENTS = ['/assets/lyceum.css', '/auth.md', '/llms.txt', '/pricing.md'];
      const reqs: fc.Arbitrary<Req> = fc
        .tuple(
          fc.constantFrom(...HTML_PAGES, ...JSON_DOCUMENTS, ...TEXT_DOCUMENTS),
          fc.constantFrom('GET', 'GET', 'HEAD'),
          formPairs(['return_to', 'client_id', 'x'], anyText(2000)),
          fc.option(
            fc.oneof(
              headerText,
              fc.constant(0).map(() => f.signedInCookie),
              headerText.map((s) => `${sessionCookieName(f.server.deps.config)}=${s}`),
            ),
            { nil: undefined },
          ),
        )
        .map(([page, method, q, cookie]): Req => {
          const qs = encodeForm(q);
          return { method, path: `${page}${qs ? `?${qs}` : ''}`, headers: cookie === undefined ? {} : { cookie } };
        });
      await runEndpoint(reqs, (req, res) => {
        const page = req.path.split('?')[0]!;
        if (HTML_PAGES.includes(page)) checkHtmlEndpoint(req, res);
        else if (JSON_DOCUMENTS.includes(page)) checkJsonEndpoint(req, res);
        else checkCommon(req, res);
        // Query parameters these pages ignore are harmless, except a NUL character, which every route refuses (400).
        const expected = decodeURIComponent(req.path.split('?')[1] ?? '').includes('\u0000') ? 400 : 200;
        if (req.method === 'GET' && res.status !== NODE_HEADER_TOO_LARGE) expect(res.status, describeReq(req)).toBe(expected);
      });
    },
    TEST_TIMEOUT,
  );

  it(
    'the platform API: every /api/v1 operation of /openapi.json',
    async () => {
      expect(f.operations.length).toBeGreaterThan(0);
      const json = fc.jsonValue({ maxDepth: 3 });
      const value = fc.oneof(anyText(3000), json, fc.integer(), fc.double(), fc.boolean(), fc.constant(null));
      const auth = fc.oneof(
        { weight: 4, arbitrary: fc.constant(0).map(() => `Bearer ${f.ownerToken}`) },
        { weight: 1, arbitrary: fc.constant(0).map(() => `Bearer ${f.accessToken}`) },
        { weight: 1, arbitrary: fc.constant<string | undefined>(undefined) },
        { weight: 1, arbitrary: headerText },
      );
      const reqs: fc.Arbitrary<Req> = fc
        .record({
          op: fc.nat(),
          // Path parameters stay within the router's length limit; beyond it is a test of its own below.
          ids: fc.array(fc.oneof(anyText(200), fc.constantFrom('crs_x', 'stu_x', 'x', '0', '-1', '..', 'null')), { minLength: 3, maxLength: 3 }),
          query: fc.array(fc.tuple(fc.oneof(fc.constantFrom('limit', 'after', 'q', 'sort', 'status', 'order', 'fields', 'cursor'), anyText(50)), fc.oneof(anyText(500), fc.integer().map(String))), {
            maxLength: 5,
          }),
          useDocumentedQuery: fc.boolean(),
          body: fc.oneof(
            { weight: 4, arbitrary: fc.dictionary(fc.string(), value, { maxKeys: 6 }).map((d) => ({ kind: 'props' as const, d })) },
            { weight: 2, arbitrary: json.map((v) => ({ kind: 'json' as const, v })) },
            { weight: 1, arbitrary: fc.tuple(contentType, rawBody).map(([ct, b]) => ({ kind: 'raw' as const, ct, b })) },
          ),
          propValues: fc.array(value, { minLength: 12, maxLength: 12 }),
          auth,
        })
        .map(({ op: i, ids, query, useDocumentedQuery, body, propValues, auth: authorization }): Req => {
          const op = f.operations[i % f.operations.length]!;
          let k = 0;
          const path = op.template.replace(/\{[^}]+\}/g, () => encodeURIComponent(wellFormed(ids[k++ % ids.length]!)));
          const q = query.map(([name, v], j): [string, string] => [useDocumentedQuery && op.queryParams.length ? op.queryParams[j % op.queryParams.length]! : name, v]);
          const qs = encodeForm(q);
          const headers: Record<string, string> = {};
          if (authorization) headers.authorization = authorization;
          const req: Req = { method: op.method, path: `${path}${qs ? `?${qs}` : ''}`, headers };
          if (op.method === 'GET' || op.method === 'DELETE') return req;
          if (body.kind === 'raw') return { ...req, headers: { ...headers, 'content-type': body.ct }, body: body.b };
          headers['content-type'] = 'application/json';
          if (body.kind === 'json') return { ...req, body: JSON.stringify(body.v) };
          // The operation's own fields with arbitrary values, plus whatever else was drawn.
          const props: Record<string, unknown> = { ...body.d };
          op.bodyProps.forEach((name, j) => {
            if (j < propValues.length && (j + ids.length) % 3 !== 0) props[name] = propValues[j];
          });
          return { ...req, body: JSON.stringify(props) };
        });
      await runEndpoint(reqs, checkJsonEndpoint);
    },
    TEST_TIMEOUT,
  );

  it(
    'POST, GET and DELETE /mcp',
    async () => {
      const json = fc.jsonValue({ maxDepth: 3 });
      const message = fc.record(
        {
          jsonrpc: fc.oneof(fc.constant('2.0'), json),
          id: fc.oneof(fc.integer(), fc.string(), fc.constant(null), json),
          method: fc.oneof(fc.constantFrom('initialize', 'tools/list', 'tools/call', 'resources/list', 'prompts/list', 'ping', 'notifications/initialized'), anyText(200)),
          params: fc.oneof(
            fc.record(
              {
                name: fc.oneof(
                  fc.constant(0).chain(() => fc.constantFrom(...(f.mcpTools.length ? f.mcpTools : ['none']))),
                  anyText(100),
                ),
                arguments: fc.oneof(fc.dictionary(fc.string(), json, { maxKeys: 5 }), json),
              },
              { requiredKeys: [] },
            ),
            json,
          ),
        },
        { requiredKeys: [] },
      );
      const body = fc.oneof(
        { weight: 5, arbitrary: message.map((m) => JSON.stringify(m)) },
        { weight: 1, arbitrary: fc.array(message, { maxLength: 4 }).map((m) => JSON.stringify(m)) },
        { weight: 1, arbitrary: anyText() },
        { weight: 1, arbitrary: json.map((v) => JSON.stringify(v)) },
      );
      const reqs: fc.Arbitrary<Req> = fc
        .record({
          method: fc.constantFrom('POST', 'POST', 'POST', 'POST', 'GET', 'DELETE'),
          body,
          type: fc.oneof({ weight: 5, arbitrary: fc.constant('application/json') }, { weight: 1, arbitrary: contentType }),
          accept: fc.constantFrom('application/json, text/event-stream', 'application/json, text/event-stream', 'application/json', 'text/event-stream', '*/*', ''),
          auth: fc.option(
            fc.oneof(
              fc.constant(0).map(() => `Bearer ${f.ownerToken}`),
              fc.constant(0).map(() => `Bearer ${f.accessToken}`),
              headerText,
            ),
            { nil: undefined },
          ),
          protocolVersion: fc.option(fc.oneof(fc.constantFrom('2025-06-18', '2025-03-26', '2024-11-05'), headerText), { nil: undefined }),
        })
        .map(({ method, body: b, type, accept, auth, protocolVersion }): Req => {
          const headers: Record<string, string> = { accept };
          if (auth) headers.authorization = auth;
          if (protocolVersion !== undefined) headers['mcp-protocol-version'] = protocolVersion;
          if (method !== 'POST') return { method, path: '/mcp', headers };
          return { method, path: '/mcp', headers: { ...headers, 'content-type': type }, body: b };
        });
      await runEndpoint(reqs, checkCommon);
    },
    TEST_TIMEOUT,
  );

  it(
    'GET /account/apps, POST /account/apps/disconnect and POST /oauth/sign-out',
    async () => {
      // A user of their own, signed in with a connected app, so that disconnecting touches nothing the other properties use.
      const other = await f.server.addUser('admin');
      const ua = new UserAgent(f.issuer);
      await obtainTokens(f.issuer, ua, other, f.publicClientId, 'openid courses:read');
      const page = await ua.navigate('/account/apps');
      if ('redirect' in page) throw new Error('expected the connected apps page');
      const csrf = parseForms(page.html).find((form) => form.fields._csrf)?.fields._csrf;
      if (!csrf) throw new Error('no CSRF token on the connected apps page');
      const cookie = ua.cookieHeader();

      const reqs: fc.Arbitrary<Req> = fc
        .record({
          target: fc.constantFrom('GET /account/apps', 'POST /account/apps/disconnect', 'POST /account/apps/disconnect', 'POST /oauth/sign-out'),
          csrf: fc.constantFrom('valid', 'valid', 'none', 'wrong'),
          cookie: fc.constantFrom('signed-in', 'signed-in', 'none', 'garbage'),
          garbageCookie: headerText,
          clientId: fc.option(
            fc.oneof(
              fc.constant(0).map(() => f.confidential.clientId),
              fc.constant(0).map(() => f.publicClientId),
              anyText(400),
            ),
            { nil: undefined },
          ),
          mutations,
          pairs: formPairs(['client_id', '_csrf'], anyText()),
          type: encoding,
          query: formPairs(['notice', 'client_id'], anyText(500)),
        })
        .map(({ target, csrf: which, cookie: c, garbageCookie, clientId, mutations: ms, pairs, type, query }): Req => {
          const [method, path] = target.split(' ') as [string, string];
          const headers: Record<string, string> = {};
          if (c === 'signed-in') headers.cookie = cookie;
          if (c === 'garbage') headers.cookie = garbageCookie;
          if (method === 'GET') {
            const qs = encodeForm(query);
            return { method, path: `${path}${qs ? `?${qs}` : ''}`, headers };
          }
          const fields: [string, string][] = [];
          if (which === 'valid') fields.push(['_csrf', csrf]);
          if (which === 'wrong') fields.push(['_csrf', `${csrf}x`]);
          if (clientId !== undefined) fields.push(['client_id', clientId]);
          const b = encodeBody([...mutate(fields, ms), ...pairs], type);
          return { method, path, headers: { ...headers, ...b.headers }, body: b.body };
        });
      await runEndpoint(reqs, (req, res) => {
        checkHtmlEndpoint(req, res);
        checkRedirect(f.issuer, req, res, false);
      });
    },
    TEST_TIMEOUT,
  );

  it(
    'unknown paths and methods',
    async () => {
      const segment = fc.oneof(
        // Well-formed percent-encoding only; malformed escapes are a test of their own below.
        fc.constantFrom('api', 'oauth', 'register', 'token', '.well-known', '..', '.', '%2e%2e', '%2f', '%00', '%25', '%C3%A9', '%F0%9F%92%A5', ';', '~', '@'),
        fc.string({ unit: 'grapheme' }).map(encodeURIComponent),
        fc.string().map(encodeURIComponent),
      );
      const KNOWN = new Set([
        '/',
        '/oauth/authorize',
        '/oauth/sign-in',
        '/oauth/authorize/decision',
        '/api/oauth/register',
        '/api/oauth/token',
        '/api/oauth/revoke',
        '/api/oauth/introspect',
        '/api/oauth/userinfo',
        '/assets/lyceum.css',
        '/mcp',
        '/account/apps',
        '/account/apps/disconnect',
        '/oauth/sign-out',
        '/openapi.json',
        '/auth.md',
        '/llms.txt',
        '/pricing.md',
      ]);
      const reqs: fc.Arbitrary<Req> = fc
        .tuple(
          fc.array(segment, { minLength: 1, maxLength: 5 }),
          fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'),
          fc.option(fc.tuple(contentType, rawBody), { nil: undefined }),
        )
        .map(([segs, method, b]): Req => ({
          method,
          path: `/${segs.join('/')}`,
          headers: b ? { 'content-type': b[0] } : {},
          ...(b && !['GET', 'HEAD'].includes(method) ? { body: b[1] } : {}),
        }))
        .filter((r) => {
          let p: string;
          try {
            p = decodeURIComponent(new URL(r.path, 'http://x').pathname);
          } catch {
            return true;
          }
          return !KNOWN.has(p) && !p.startsWith('/.well-known/') && !p.startsWith('/api/v1/');
        });
      await runEndpoint(reqs, (req, res) => {
        checkCommon(req, res);
        if (res.status === 404 && req.method !== 'HEAD') {
          checkJsonEndpoint(req, res);
          expect(JSON.parse(res.text).error, describeReq(req)).toBe('not_found');
        }
      });
    },
    TEST_TIMEOUT,
  );

  /**
   * Inputs the properties above have turned up, pinned so that each runs on
   * every store on every run, whatever the random draw.
   */
  describe('pinned inputs', () => {
    const form = (path: string, fields: [string, string][], headers: Record<string, string> = {}): Req => ({
      method: 'POST',
      path,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: encodeForm(fields),
    });
    const cases: [string, () => Req, (req: Req, res: Res) => void][] = [
      [
        'token endpoint, client_id with a NUL',
        () =>
          form('/api/oauth/token', [
            ['grant_type', 'refresh_token'],
            ['refresh_token', 'lyc_rt_x'],
            ['client_id', `\u0000${f.publicClientId}`],
          ]),
        checkJsonEndpoint,
      ],
      [
        'revocation endpoint, client_id with a NUL',
        () =>
          form('/api/oauth/revoke', [
            ['token', 'lyc_at_x'],
            ['client_id', 'a\u0000b'],
          ]),
        checkJsonEndpoint,
      ],
      [
        'introspection endpoint, client_id with a NUL',
        () =>
          form('/api/oauth/introspect', [
            ['token', 'lyc_at_x'],
            ['client_id', 'a\u0000b'],
          ]),
        checkJsonEndpoint,
      ],
      [
        'authorization endpoint, client_id with a NUL',
        () => ({
          method: 'GET',
          path: `/oauth/authorize?${encodeForm([
            ['client_id', 'a\u0000b'],
            ['redirect_uri', 'http://127.0.0.1:5555/callback'],
          ])}`,
          headers: {},
        }),
        checkHtmlEndpoint,
      ],
      [
        'sign-in, email with a NUL',
        () =>
          form(
            '/oauth/sign-in',
            [
              ['_csrf', f.anonymousCsrf],
              ['email', 'a\u0000b@school.test'],
              ['password', 'x'],
            ],
            { cookie: f.anonymousCookie },
          ),
        checkHtmlEndpoint,
      ],
      [
        'sign-in with the right password and a return_to holding a non-Latin-1 character',
        () =>
          form(
            '/oauth/sign-in',
            [
              ['_csrf', f.anonymousCsrf],
              ['email', f.user.email],
              ['password', f.user.password],
              ['return_to', '/oauth/authorize?x=中'],
            ],
            {
              cookie: f.anonymousCookie,
            },
          ),
        (req, res) => {
          checkHtmlEndpoint(req, res);
          checkRedirect(f.issuer, req, res, false);
        },
      ],
      [
        'sign-in with the right password and a return_to holding a line break',
        () =>
          form(
            '/oauth/sign-in',
            [
              ['_csrf', f.anonymousCsrf],
              ['email', f.user.email],
              ['password', f.user.password],
              ['return_to', '/oauth/authorize?x=\r\nSet-Cookie: a=b'],
            ],
            {
              cookie: f.anonymousCookie,
            },
          ),
        (req, res) => {
          checkHtmlEndpoint(req, res);
          checkRedirect(f.issuer, req, res, false);
          expect(res.headers.get('set-cookie') ?? '').not.toMatch(/\ba=b\b/);
        },
      ],
      ['a path with a malformed percent escape (/%ff)', () => ({ method: 'GET', path: '/%ff', headers: {} }), checkJsonEndpoint],
      ['a path with a lone percent sign (/api/oauth/%)', () => ({ method: 'GET', path: '/api/oauth/%', headers: {} }), checkJsonEndpoint],
      [
        'a platform record id longer than the router allows',
        () => ({ method: 'GET', path: `/api/v1/courses/${'x'.repeat(600)}`, headers: { authorization: `Bearer ${f.ownerToken}` } }),
        checkJsonEndpoint,
      ],
      ['a platform record id with a NUL', () => ({ method: 'GET', path: '/api/v1/courses/crs_%00', headers: { authorization: `Bearer ${f.ownerToken}` } }), checkJsonEndpoint],
    ];

    it.each(cases.map(([name, build, check]) => ({ name, build, check })))('$name', async ({ build, check }) => {
      const req = build();
      check(req, await send(f.issuer, req));
      await expectHealthy(f.issuer);
    });
  });
});
