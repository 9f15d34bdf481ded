import { execFile } from 'node:child_process';
import { approveDevice, type DeviceStart } from '../helpers/device.ts';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AREAS, type AreaDef } from '../../src/platform/areas.ts';
import { recordToRow } from '../../src/platform/fields.ts';
import { readJson } from '../helpers/bearer.ts';
import { obtainTokens, startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { UserAgent } from '../helpers/user-agent.ts';
import { CONTRACT_SCOPES } from '../helpers/contract-scopes.ts';

/** Every path of the contract's "Endpoints" and "Discovery" tables, plus the other OAuth endpoints Lyceum serves. */
const ENDPOINT_PATHS = [
  '/api/oauth/register',
  '/oauth/authorize',
  '/api/oauth/token',
  '/api/oauth/userinfo',
  '/api/oauth/revoke',
  '/api/oauth/introspect',
  '/.well-known/jwks.json',
  '/openapi.json',
  '/auth.md',
  '/llms.txt',
  '/pricing.md',
  '/mcp',
  '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-protected-resource/mcp',
  '/.well-known/oauth-authorization-server',
  '/.well-known/openid-configuration',
];

const SPEC_ERROR_CODES = ['invalid_request', 'invalid_grant', 'invalid_client', 'invalid_scope', 'invalid_redirect_uri', 'invalid_token', 'insufficient_scope'];

const CATALOG_PATHS = ['/courses', '/lecturers', '/membership-plans', '/digital-products', '/events', '/posts', '/pages', '/school'];

const DAY = 86_400_000;

interface Doc {
  status: number;
  type: string | null;
  cacheControl: string | null;
  text: string;
}

async function getDoc(issuer: string, path: string): Promise<Doc> {
  const res = await fetch(`${issuer}${path}`);
  return { status: res.status, type: res.headers.get('content-type'), cacheControl: res.headers.get('cache-control'), text: await res.text() };
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A section of a Markdown document: from its `## title` line to the next `## `. */
function section(md: string, title: string): string {
  const start = md.indexOf(`\n## ${title}\n`);
  expect(start, `section "${title}"`).toBeGreaterThanOrEqual(0);
  const end = md.indexOf('\n## ', start + 4);
  return md.slice(start, end === -1 ? undefined : end);
}

/** A row written straight into the store, shaped as RecordService writes it (src/platform/fields.ts recordToRow). */
async function insertRecord(server: FlowServer, area: AreaDef, values: Record<string, unknown>): Promise<string> {
  const now = server.deps.now();
  const defaults: Record<string, unknown> = {};
  for (const [name, f] of Object.entries(area.fields)) if (f.default !== undefined) defaults[name] = f.default;
  const id = `${area.idPrefix}_${randomBytes(9).toString('base64url')}`;
  await server.deps.store.records.insert(area.name, { ...recordToRow(area.fields, { ...defaults, ...values }), id, created_at: now, updated_at: now });
  return id;
}

const tag = () => randomBytes(4).toString('hex');

const run = promisify(execFile);
const hasShellTools = ['/bin/bash', '/usr/bin/curl', '/usr/bin/openssl'].every((p) => existsSync(p)) || process.env.CI === 'true';

/** Runs a script with bash in strict mode; curl must reach the loopback server directly. */
async function bash(script: string): Promise<string> {
  const env = { ...process.env, NO_PROXY: '*', no_proxy: '*' };
  const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], { env, timeout: 20_000 });
  return stdout;
}

describe.each(STORE_KINDS)('generated documents (%s)', (kind) => {
  let server: FlowServer;
  let writer: string;

  beforeAll(async () => {
    server = await startFlowServer(kind);
    writer = (await obtainTokens(server, { scope: 'courses:write' })).tokens.access_token;
  });
  afterAll(() => server.stop());

  const createCourse = async (body: Record<string, unknown>) => {
    const res = await readJson(
      await fetch(`${server.issuer}/api/v1/courses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${writer}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    );
    expect(res.status, res.text).toBe(201);
    return res.json;
  };

  describe('content types and caching', () => {
    it.each([
      ['/auth.md', 'text/markdown'],
      ['/llms.txt', 'text/plain'],
      ['/pricing.md', 'text/markdown'],
    ])('%s is %s in UTF-8, revalidated on every use (Cache-Control: no-cache)', async (path, type) => {
      const doc = await getDoc(server.issuer, path);
      expect(doc.status, doc.text).toBe(200);
      expect(doc.type).toBe(`${type}; charset=utf-8`);
      expect(doc.cacheControl).toBe('no-cache');
      expect(doc.text.length).toBeGreaterThan(100);
    });

    it('are served to anonymous callers and ignore a token', async () => {
      const res = await fetch(`${server.issuer}/auth.md`, { headers: { authorization: 'Bearer not-a-token' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('www-authenticate')).toBeNull();
    });
  });

  describe('/auth.md', () => {
    let md: string;
    beforeAll(async () => {
      md = (await getDoc(server.issuer, '/auth.md')).text;
    });

    it('is built with this server’s issuer: every absolute URL on another origin is a loopback redirect example or on a reserved .example host', () => {
      expect(md).toContain(`ISSUER='${server.issuer}'`);
      expect(md).toContain(`Issuer: \`${server.issuer}\``);
      const origins = new Set([...md.matchAll(/https?:\/\/[^\s`'"/)|]+/g)].map((m) => m[0]));
      for (const origin of origins) {
        if (origin === server.issuer) continue;
        // RFC 2606 §3: .example names no real host; the Client ID Metadata Document examples use it.
        const example = /^https:\/\/[a-z.]+\.example(:\d+)?$/.test(origin);
        expect(/^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(origin) || origin === 'https://…' || example, `unexpected origin ${origin}`).toBe(true);
      }
    });

    it('lists all 38 scopes of the contract in its scope table, with their descriptions', () => {
      const scopes = section(md, 'Scopes');
      expect(CONTRACT_SCOPES).toHaveLength(38);
      const rows = [...scopes.matchAll(/^\| `([a-z_:]+)` \| ([^|]+) \|/gm)].map((m) => [m[1], m[2]!.trim()]);
      expect(rows.map(([s]) => s)).toEqual(CONTRACT_SCOPES);
      expect(Object.fromEntries(rows)).toMatchObject({ openid: 'OpenID Connect authentication', 'courses:read': 'Read courses', 'account:write': 'Write account' });
      expect(scopes).toContain('38 scopes');
    });

    it('gives the absolute URL of every endpoint and discovery document', () => {
      const endpoints = section(md, 'Endpoints');
      for (const path of ENDPOINT_PATHS) expect(endpoints, path).toContain(`\`${server.issuer}${path}\``);
    });

    it('states the loopback redirect rules', () => {
      const rules = section(md, 'Loopback redirect URIs');
      for (const host of ['`127.0.0.1`', '`[::1]`', '`localhost`']) expect(rules).toContain(host);
      expect(rules).toMatch(/any port/);
      expect(rules).toMatch(/path and query must match exactly/);
      expect(rules).toMatch(/`invalid_redirect_uri`/);
      expect(rules).toMatch(/mixed list[^\n]*loopback entries are kept/i);
    });

    it('says how each kind of client connects: loopback ones register themselves, others are registered by the school', () => {
      const school = section(md, 'Clients the school registers');
      expect(school).toContain('`lyceum clients add --name N --redirect-uri URI [--redirect-uri URI ...] [--confidential] [--scope S]`');
      expect(school).toContain('`cursor://anysphere.cursor-mcp/oauth/callback`');
      expect(school).toContain('`https://assistant.example/api/mcp/auth_callback`');
      expect(school).toMatch(/compared exactly as registered/);
      expect(school).toMatch(/registers itself at `\/api\/oauth\/register`/);
    });

    it('has a copy-pasteable curl and openssl walkthrough of the whole flow', () => {
      const walk = section(md, 'Walkthrough with curl and openssl');
      expect(walk).toMatch(/openssl dgst -sha256 -binary/);
      expect(walk).toContain('code_challenge_method=S256');
      for (const step of ['/api/oauth/register', '/oauth/authorize', '/api/oauth/token', '/api/v1/courses', '/api/oauth/revoke']) expect(walk).toContain(`$ISSUER${step}`);
      for (const field of ['code_verifier', 'grant_type=authorization_code', 'grant_type=refresh_token', 'Authorization: Bearer $ACCESS_TOKEN']) expect(walk).toContain(field);
      expect(walk).toMatch(/query_param iss/);
    });

    it('shows the lifetimes this server runs with', () => {
      const lifetimes = section(md, 'Token lifetimes');
      expect(lifetimes).toMatch(/Authorization code[^\n]*\| 60 s \(1 minute\) \|/);
      expect(lifetimes).toMatch(/Access token[^\n]*\| 3600 s \(1 hour\) \|/);
      expect(lifetimes).toMatch(/Refresh token[^\n]*\| 2592000 s \(30 days\) \|/);
      expect(lifetimes).toMatch(/Grace window[^\n]*\| 10 s \|/);
      expect(lifetimes).toMatch(/ID token[^\n]*\| 3600 s \(1 hour\) \|/);
    });

    it('names the resource identifiers of the API and the MCP server', () => {
      const resources = section(md, 'Resource indicators');
      expect(resources).toContain(`| \`${server.issuer}\` |`);
      expect(resources).toContain(`| \`${server.issuer}/mcp\` |`);
    });

    it('documents every error code of the contract with its status, and the challenge the server really sends', async () => {
      const errors = section(md, 'Errors');
      for (const code of SPEC_ERROR_CODES) expect(errors, code).toMatch(new RegExp(`^\\| \`${code}\` \\| `, 'm'));
      expect(errors).toMatch(/^\| `invalid_token` \| 401 /m);
      expect(errors).toMatch(/^\| `insufficient_scope` \| 403 /m);
      expect(errors).toMatch(/^\| `invalid_client` \| 401 /m);
      expect(errors).toMatch(/^\| `invalid_request` \| 401 \(no WWW-Authenticate\) /m);

      const res = await fetch(`${server.issuer}/api/v1/courses`, { headers: { authorization: 'Bearer lyc_at_unknown' } });
      expect(res.status).toBe(401);
      const header = res.headers.get('www-authenticate')!;
      const metadata = /resource_metadata="([^"]+)"/.exec(header)![1]!;
      expect(metadata).toBe(`${server.issuer}/.well-known/oauth-protected-resource`);
      const challenges = section(md, 'Anonymous requests and challenges');
      expect(challenges).toContain(`WWW-Authenticate: Bearer error="invalid_token", error_description="`);
      expect(challenges).toContain(`resource_metadata="${metadata}"`);
      expect(challenges).toMatch(/never challenged/);
      expect(challenges).toMatch(/401 `invalid_request`, \*\*without\*\* `WWW-Authenticate`/);
      expect(challenges).toMatch(/public view/);
    });

    it('lists the UserInfo claims by scope, the roles and the decisions the contract leaves open', () => {
      const claims = section(md, 'UserInfo and ID token');
      for (const [claim, scope] of [
        ['sub', 'openid'],
        ['name', 'profile'],
        ['preferred_username', 'profile'],
        ['updated_at', 'profile'],
        ['school_role', 'profile'],
        ['email', 'email'],
        ['email_verified', 'email'],
      ]) {
        expect(claims).toMatch(new RegExp(`^\\| \`${claim}\` \\| \`${scope}\` \\|`, 'm'));
      }
      const roles = section(md, 'Roles');
      for (const role of ['owner', 'admin', 'lecturer', 'student']) expect(roles).toMatch(new RegExp(`^\\| \`${role}\` \\|`, 'm'));
      expect(roles).toMatch(/requested ∩/);
      const decisions = section(md, 'Decisions where the contract is silent');
      for (const topic of ['HTTP Basic', 'Unknown scopes in `scope` are dropped', 'is not a limit', 'no-store', 'prompt', 'max_age', 'refresh token keeps working']) {
        expect(decisions, topic).toContain(topic);
      }
    });

    it('says which grants are refused from what the metadata offers, and leaves no placeholder or blank', async () => {
      const { json } = await readJson(await fetch(`${server.issuer}/.well-known/oauth-authorization-server`));
      const granted = json.grant_types_supported as string[];
      const refused = section(md, 'Not supported')
        .split('\n')
        .find((l) => l.startsWith('- '));
      expect(refused).toBe(
        `- Implicit, password and client credentials grants; only ${granted
          .slice(0, -1)
          .map((g) => `\`${g}\``)
          .join(', ')} and \`${granted.at(-1)}\`.`,
      );
      expect(md).not.toMatch(/\{\{|\bundefined\b|\[object Object\]/);
    });

    it.skipIf(!hasShellTools)('walkthrough: the shell blocks run as written against this server', async () => {
      const blocks = [...md.matchAll(/```sh\n([\s\S]*?)\n```/g)].map((m) => m[1]!);
      const browser = blocks.findIndex((b) => b.includes('xdg-open'));
      expect(browser).toBeGreaterThan(0);
      const [settings] = blocks;

      // Up to the browser: register, PKCE, authorization URL; keep the shell variables.
      const first = await bash(`${blocks.slice(0, browser).join('\n')}\ndeclare -p CLIENT_ID CODE_VERIFIER STATE AUTH_URL`);
      expect(first).toMatch(/"client_id":"lyc_client_/);
      const variables = first.split('\n').filter((l) => l.startsWith('declare -- '));
      expect(variables).toHaveLength(4);
      const authUrl = /^declare -- AUTH_URL="(.*)"$/m.exec(first)![1]!;

      // The person at the browser.
      const callback = await new UserAgent(server.issuer).authorize(authUrl, server.user);
      expect(callback.origin).toBe('http://127.0.0.1:8765');

      const rest = blocks.slice(browser + 1).join('\n');
      expect(rest).toMatch(/^CALLBACK='[^']*'$/m);
      const second = await bash([settings, ...variables, rest.replace(/^CALLBACK='[^']*'$/m, `CALLBACK='${callback.href}'`)].join('\n'));
      expect(second).not.toMatch(/does not match/);
      expect(second).toMatch(/"token_type":"Bearer"/);
      expect(second).toMatch(/"scope":"openid profile email courses:read"/);
      expect(second).toMatch(/"data":\[/);
      expect(second).toMatch(new RegExp(`"email":"${escapeRegExp(server.user.email)}"`));
      expect(second).toMatch(/^revoke: 200$/m);
      expect(second).toMatch(/^after revocation: 401$/m);
    });
  });

  describe('/auth.md device flow', () => {
    it.skipIf(!hasShellTools)(
      'the device-flow blocks run as written: register, start, a person approves, the poll ends in tokens',
      async () => {
        const md = (await getDoc(server.issuer, '/auth.md')).text;
        const device = section(md, 'Without a browser on this machine: the device flow');
        const [settings] = [...md.matchAll(/```sh\n([\s\S]*?)\n```/g)].map((m) => m[1]!);
        const blocks = [...device.matchAll(/```bash\n([\s\S]*?)\n```/g)].map((m) => m[1]!);
        expect(blocks).toHaveLength(2);
        const first = await bash(`${settings}\n${blocks[0]}\ndeclare -p DEVICE_CLIENT_ID DEVICE_CODE`);
        const shown = /^Open (\S+) and enter ([A-Z]{4}-[A-Z]{4})$/m.exec(first);
        expect(shown, first).not.toBeNull();
        expect(shown![1]).toBe(`${server.issuer}/oauth/device`);
        const variables = first.split('\n').filter((l) => l.startsWith('declare -- '));
        expect(variables).toHaveLength(2);
        // The person, on another device.
        const done = await approveDevice(server.issuer, { verification_uri_complete: `${shown![1]}?user_code=${shown![2]}`, user_code: shown![2]! } as DeviceStart, server.user);
        expect(done.html).toContain('Device connected');
        const second = await bash([settings, ...variables, blocks[1]].join('\n'));
        expect(second).toMatch(/"token_type":"Bearer"/);
        expect(second).toMatch(/"scope":"openid courses:read"/);
      },
      30_000,
    );
  });

  describe('/llms.txt', () => {
    it('follows llmstxt.org: an H1, a blockquote summary, then sections of absolute links', async () => {
      const txt = (await getDoc(server.issuer, '/llms.txt')).text;
      const lines = txt.split('\n');
      expect(lines[0]).toMatch(/^# \S/);
      expect(lines[0]).toBe('# Lyceum School');
      expect(lines.find((l) => l.trim() !== '' && !l.startsWith('# '))).toMatch(/^> \S/);
      expect(txt).toMatch(/^## Docs$/m);
      expect(txt).toMatch(/^## MCP$/m);
      expect(txt).toMatch(/^## Catalog$/m);
      const links = [...txt.matchAll(/^- \[[^\]]+\]\(([^)]+)\)(: \S.*)?$/gm)].map((m) => m[1]!);
      for (const url of links) expect(url.startsWith(`${server.issuer}/`), url).toBe(true);
      for (const path of ['/auth.md', '/openapi.json', '/pricing.md', '/mcp', '/.well-known/oauth-authorization-server', '/.well-known/oauth-protected-resource']) {
        expect(links, path).toContain(`${server.issuer}${path}`);
      }
      for (const path of CATALOG_PATHS) expect(links, path).toContain(`${server.issuer}/api/v1${path}`);
      expect(section(txt, 'MCP')).toMatch(/^- \[[^\]]+\]\([^)]+\/mcp\): \S/m);
    });
  });

  describe('/pricing.md', () => {
    it('shows published courses with their level and price from live data, and never a draft', async () => {
      const title = `Course ${tag()}`;
      const draft = `Draft ${tag()}`;
      const free = `Free course ${tag()}`;
      const before = (await getDoc(server.issuer, '/pricing.md')).text;
      expect(before).not.toContain(title);

      const course = await createCourse({ title, level: 'advanced', price_cents: 4900, status: 'published' });
      await createCourse({ title: draft, price_cents: 9900, status: 'draft' });
      await createCourse({ title: free, price_cents: 0, status: 'published' });

      const md = (await getDoc(server.issuer, '/pricing.md')).text;
      const courses = section(md, 'Courses');
      expect(courses).toContain(`| [${title}](${server.issuer}/api/v1/courses/${course.id as string}) | advanced | en | $49.00 |`);
      expect(courses).toMatch(new RegExp(`\\| \\[${escapeRegExp(free)}\\]\\([^)]+\\) \\| beginner \\| en \\| Free \\|`));
      expect(md).not.toContain(draft);
      expect(md).not.toContain('$99.00');
    });

    it('shows published membership plans, digital products and upcoming events, each with its price', async () => {
      const plan = `Plan ${tag()}`;
      const benefit = `Benefit ${tag()}`;
      const product = `Product ${tag()}`;
      const event = `Event ${tag()}`;
      const pastEvent = `Past event ${tag()}`;
      const hidden = `Hidden ${tag()}`;
      const now = server.deps.now();
      await insertRecord(server, AREAS.membership_plans, { name: plan, price_cents: 1900, interval: 'month', benefits: [benefit], status: 'published' });
      await insertRecord(server, AREAS.membership_plans, { name: hidden, price_cents: 100, status: 'archived' });
      await insertRecord(server, AREAS.digital_products, { name: product, format: 'PDF', price_cents: 1250, status: 'published' });
      await insertRecord(server, AREAS.events, { title: event, starts_at: new Date(now + 7 * DAY).toISOString(), location: 'Online', price_cents: 500, status: 'published' });
      await insertRecord(server, AREAS.events, { title: pastEvent, starts_at: new Date(now - 7 * DAY).toISOString(), price_cents: 500, status: 'published' });

      const md = (await getDoc(server.issuer, '/pricing.md')).text;
      const plans = section(md, 'Membership plans');
      expect(plans).toContain(`### ${plan}: $19.00 per month`);
      expect(plans).toContain(`- ${benefit}`);
      expect(section(md, 'Digital products')).toMatch(new RegExp(`\\| \\[${escapeRegExp(product)}\\]\\([^)]+\\) \\| PDF \\| \\$12\\.50 \\|`));
      expect(section(md, 'Upcoming events')).toMatch(new RegExp(`\\| \\[${escapeRegExp(event)}\\]\\([^)]+\\) \\| \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC \\| Online \\| \\$5\\.00 \\|`));
      expect(md).not.toContain(pastEvent);
      expect(md).not.toContain(hidden);
    });

    it('pages through the whole catalog, beyond one page of 100', async () => {
      const batch = tag();
      for (let i = 0; i < 105; i++) await insertRecord(server, AREAS.courses, { title: `Bulk ${batch} ${i}`, slug: `bulk-${batch}-${i}`, price_cents: 100 + i, status: 'published' });
      const md = (await getDoc(server.issuer, '/pricing.md')).text;
      const rows = md.split('\n').filter((l) => l.includes(`Bulk ${batch} `));
      expect(rows).toHaveLength(105);
      expect(md).toContain(`Bulk ${batch} 104`);
    });

    it('escapes Markdown in titles, so a record cannot add links or HTML', async () => {
      await createCourse({ title: 'Evil | <img src=x> [link](https://evil.example)', price_cents: 100, status: 'published' });
      const md = (await getDoc(server.issuer, '/pricing.md')).text;
      expect(md).not.toMatch(/(?<!\\)<img/);
      expect(md).not.toMatch(/(?<!\\)\]\(https:\/\/evil/);
      expect(md).toContain('Evil \\| \\<img src=x\\> \\[link\\]');
    });

    it('follows the school settings: name in both documents, currency of the prices', async () => {
      const name = `Academy ${tag()}`;
      await server.deps.store.settings.put('school', { name, description: 'Learn things.\nWell.', currency: 'EUR' }, server.deps.now());
      try {
        const title = `Euro course ${tag()}`;
        await createCourse({ title, price_cents: 2500, status: 'published' });
        const pricing = (await getDoc(server.issuer, '/pricing.md')).text;
        expect(pricing.split('\n')[0]).toBe(`# Pricing: ${name}`);
        expect(pricing).toMatch(/Prices are in EUR/);
        expect(pricing).toMatch(new RegExp(`${escapeRegExp(title)}[^\\n]*\\| €25\\.00 \\|`));
        const llms = (await getDoc(server.issuer, '/llms.txt')).text.split('\n');
        expect(llms[0]).toBe(`# ${name}`);
        expect(llms).toContain('> Learn things. Well.');
      } finally {
        await server.deps.store.settings.put('school', {}, server.deps.now());
      }
    });
  });
});

describe('/auth.md follows the configuration', () => {
  let server: FlowServer;
  beforeAll(async () => {
    server = await startFlowServer('sqlite', {
      CODE_TTL_SECONDS: '120',
      ACCESS_TOKEN_TTL_SECONDS: '900',
      REFRESH_TOKEN_TTL_SECONDS: '7200',
      REFRESH_GRACE_SECONDS: '0',
      ID_TOKEN_TTL_SECONDS: '600',
      LOOPBACK_HOSTS: '127.0.0.1,[::1]',
      RATE_LIMIT_REGISTER_PER_MINUTE: '5',
      RATE_LIMIT_UPLOAD_PER_MINUTE: '0',
      STORAGE_QUOTA_BYTES: '2048',
      SIGN_IN_FREE_FAILURES: '4',
      SIGN_IN_FIRST_DELAY_SECONDS: '3',
      SIGN_IN_MAX_DELAY_SECONDS: '60',
    });
  });
  afterAll(() => server.stop());

  it('shows the configured lifetimes, loopback hosts and limits, not the defaults', async () => {
    const md = (await getDoc(server.issuer, '/auth.md')).text;
    const lifetimes = section(md, 'Token lifetimes');
    expect(lifetimes).toMatch(/Authorization code[^\n]*\| 120 s \(2 minutes\) \|/);
    expect(lifetimes).toMatch(/Access token[^\n]*\| 900 s \(15 minutes\) \|/);
    expect(lifetimes).toMatch(/Refresh token[^\n]*\| 7200 s \(2 hours\) \|/);
    expect(lifetimes).toMatch(/Grace window[^\n]*\| 0 s \|/);
    expect(lifetimes).toMatch(/ID token[^\n]*\| 600 s \(10 minutes\) \|/);
    const rules = section(md, 'Loopback redirect URIs');
    expect(rules).toContain('host `127.0.0.1`, `[::1]` (LOOPBACK_HOSTS)');
    expect(section(md, 'Errors')).toMatch(/^\| `too_many_requests` \| 429 \| `\/api\/oauth\/register` \| More than 5 registrations per minute/m);
  });

  it('lists every limit a client may meet with the configured values and what it answers past them', async () => {
    const limits = section((await getDoc(server.issuer, '/auth.md')).text, 'Limits a client may meet');
    expect(limits).toContain('| Registrations (policy `"register"`) | 5 a minute per client address (RATE_LIMIT_REGISTER_PER_MINUTE) | 429 `too_many_requests`, `Retry-After` |');
    expect(limits).toContain('| Uploads (policy `"upload"`) | none on this server (RATE_LIMIT_UPLOAD_PER_MINUTE=0) |');
    expect(limits).toContain(
      '| A page of a `GET /api/v1/…` list | `limit` 1 to 100 (20 when not given, more pages through `next_cursor`; files: 50, one page) | 400 `invalid_request` outside the range |',
    );
    expect(limits).toContain('| An `Idempotency-Key` | 1 to 255 printable ASCII characters | 400 `invalid_request` |');
    expect(limits).toMatch(/\| The answer kept for an `Idempotency-Key` of a `POST \/api\/v1\/…` \| 86400 s \(1 day\) \(IDEMPOTENCY_KEY_RETENTION_SECONDS\)/);
    expect(limits).toContain('`RateLimit-Policy: "upload";q=30;w=60`');
    const retries = section((await getDoc(server.issuer, '/auth.md')).text, 'Retrying writes safely');
    expect(retries).toContain('`Idempotency-Key`');
    expect(retries).toContain('for 86400 s (1 day) (IDEMPOTENCY_KEY_RETENTION_SECONDS)');
    expect(retries).toContain('The same key with another body is 422 `idempotency_key_reused`.');
    expect(limits).toContain('| Stored files of the school | 2.0 KiB (2048 bytes) in all (STORAGE_QUOTA_BYTES) | 413 `invalid_request`, naming what is used |');
    expect(limits).toContain('4 wrong in a row, then a wait of 3 s doubling up to 60 s (1 minute) (SIGN_IN_*); never a lockout');
    expect(limits).toContain('| One uploaded file | 10.0 MiB (10485760 bytes) | 413 `invalid_request` |');
    expect(limits).toContain('| Rows of one `POST /api/v1/enrollments/by-email/bulk` | 500 (emails and students together) | 400 `invalid_request`, nothing written |');
    expect(limits).toContain('| `/mcp` body | 1.0 MiB (1048576 bytes) | 413 `invalid_request` |');
    expect(limits).toContain('| Any other request body | 64.0 KiB (65536 bytes) | 413 `invalid_request` |');
    expect(limits).toContain('counted by each instance of this server on its own');
  });
});
