/**
 * What each scenario sends. A scenario is prepared against a running server
 * (clients, tokens) and returns autocannon request sequences, or a reason to
 * skip.
 */
import { BARE_FORM } from './bare.ts';
import { fullFlowRequests } from './flow-requests.ts';
import type { LoadRequest } from './load.ts';
import { BENCH_USER } from './lyceum-server.ts';
import { Browser, obtainTokenSets, READ_SCOPE, REGISTRATION_BODY, refreshBody, registerClient, type TokenSet } from './oauth-client.ts';

export interface Prepared {
  requests: LoadRequest[];
  /** Units of work completed (flows); requests when absent. */
  completions?: () => number;
}

export interface Scenario {
  id: string;
  label: string;
  /** Connections of this scenario when not the run's default. */
  connections?: number;
  /** What one unit is, when not a request. */
  unit?: string;
  prepare(ctx: ServerContext): Promise<Prepared | { skip: string }>;
}

/** What every scenario against one server shares: a signed-in browser, a client, tokens. */
export interface ServerContext {
  origin: string;
  browser: Browser;
  clientId: string;
  /** openid profile email students:read courses:read */
  reader: TokenSet;
  /** Spare refresh tokens of `clientId`, each starting its own rotation chain. */
  refreshPool: string[];
  /** How many the pool is topped up to before each refresh scenario. */
  refreshChains: number;
}

export async function prepareServer(origin: string, refreshChains: number): Promise<ServerContext> {
  const browser = new Browser(origin);
  await browser.signIn(BENCH_USER);
  const clientId = await registerClient(origin);
  const [reader] = await obtainTokenSets(browser, clientId, 1);
  const pool = await obtainTokenSets(browser, clientId, refreshChains, READ_SCOPE);
  return { origin, browser, clientId, reader: reader!, refreshPool: pool.map((t) => t.refresh_token), refreshChains };
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const bearer = (t: TokenSet) => ({ authorization: `Bearer ${t.access_token}` });
const simple = (requests: LoadRequest[]) => async (): Promise<Prepared> => ({ requests });

export const BARE_SCENARIOS: Scenario[] = [
  { id: 'bare-get', label: 'Bare Fastify GET (limit)', prepare: simple([{ method: 'GET', path: '/' }]) },
  { id: 'bare-post', label: 'Bare Fastify form POST (limit)', prepare: simple([{ method: 'POST', path: '/form', headers: FORM, body: BARE_FORM }]) },
  { id: 'bare-doc', label: 'Bare Fastify GET of the discovery document (reference)', prepare: simple([{ method: 'GET', path: '/doc' }]) },
];

/** Run against bench/stack-server.ts. */
export const STACK_SCENARIOS: Scenario[] = [
  {
    id: 'stack-doc',
    label: "Lyceum's plugins and logging, no Lyceum: discovery document (reference)",
    prepare: simple([{ method: 'GET', path: '/.well-known/openid-configuration' }]),
  },
];

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** POST /mcp: skipped while the endpoint answers 404; otherwise a tools/call of an anonymous catalog tool. */
async function prepareMcp(ctx: ServerContext): Promise<Prepared | { skip: string }> {
  const rpc = async (body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${ctx.origin}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, ...headers }, body: JSON.stringify(body) });
    return { status: res.status, json: (await res.json().catch(() => ({}))) as Record<string, any> };
  };
  const init = await rpc({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'lyceum-bench', version: '1' } },
  });
  if (init.status === 404) return { skip: 'not served yet (/mcp answers 404)' };
  if (init.status !== 200) throw new Error(`MCP initialize failed (${init.status}): ${JSON.stringify(init.json)}`);
  const version = { 'mcp-protocol-version': String(init.json.result?.protocolVersion ?? '2025-06-18') };
  const list = await rpc({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, version);
  const tools = (list.json.result?.tools ?? []) as { name: string }[];
  const tool = tools.find((t) => t.name === 'search_courses') ?? tools[0];
  if (!tool) return { skip: 'no anonymous MCP tool is listed' };
  const call = JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: tool.name, arguments: {} } });
  return {
    requests: [
      {
        method: 'POST',
        path: '/mcp',
        headers: { ...MCP_HEADERS, ...version },
        body: call,
        verify: (body) => body.includes('"result"') && !body.includes('"isError":true'),
      },
    ],
  };
}

/**
 * Refresh grant: each request takes a live refresh token from the pool and
 * puts its successor back. Requests still in flight when a run stops take
 * their tokens with them, so the pool is topped up before each use.
 */
async function prepareRefresh(ctx: ServerContext): Promise<Prepared> {
  const pool = ctx.refreshPool;
  const missing = ctx.refreshChains - pool.length;
  if (missing > 0) pool.push(...(await obtainTokenSets(ctx.browser, ctx.clientId, missing)).map((t) => t.refresh_token));
  return {
    requests: [
      {
        method: 'POST',
        path: '/api/oauth/token',
        headers: FORM,
        setupRequest(req, context) {
          const token = pool.shift();
          if (!token) throw new Error('the refresh pool ran dry: too many failed refreshes');
          context.token = token;
          return { ...req, body: refreshBody(ctx.clientId, token) };
        },
        onResponse(status, body, context) {
          if (status === 200) pool.push((JSON.parse(body) as TokenSet).refresh_token);
          else pool.push(context.token as string);
        },
      },
    ],
  };
}

export const LYCEUM_SCENARIOS: Scenario[] = [
  { id: 'discovery', label: 'Discovery GET /.well-known/openid-configuration', prepare: simple([{ path: '/.well-known/openid-configuration' }]) },
  { id: 'catalog', label: 'Anonymous catalog GET /api/v1/courses', prepare: simple([{ path: '/api/v1/courses' }]) },
  { id: 'bearer-read', label: 'Bearer read GET /api/v1/students (students:read)', prepare: async (ctx) => ({ requests: [{ path: '/api/v1/students', headers: bearer(ctx.reader) }] }) },
  { id: 'userinfo', label: 'UserInfo GET /api/oauth/userinfo', prepare: async (ctx) => ({ requests: [{ path: '/api/oauth/userinfo', headers: bearer(ctx.reader) }] }) },
  {
    id: 'introspection',
    label: 'Introspection POST /api/oauth/introspect',
    prepare: async (ctx) => ({
      requests: [
        {
          method: 'POST',
          path: '/api/oauth/introspect',
          headers: FORM,
          body: new URLSearchParams({ token: ctx.reader.access_token, client_id: ctx.clientId }).toString(),
          verify: (body) => body.includes('"active":true'),
        },
      ],
    }),
  },
  {
    id: 'registration',
    label: 'Registration POST /api/oauth/register',
    prepare: simple([{ method: 'POST', path: '/api/oauth/register', headers: { 'content-type': 'application/json' }, body: REGISTRATION_BODY, expectStatus: 201 }]),
  },
  { id: 'refresh', label: 'Refresh grant POST /api/oauth/token', prepare: prepareRefresh },
  { id: 'mcp', label: 'MCP tools/call POST /mcp', prepare: prepareMcp },
  {
    id: 'flow-seq',
    label: 'Full code flow, sequential (1 connection)',
    connections: 1,
    unit: 'flows',
    prepare: async () => fullFlowRequests(),
  },
  { id: 'flow-conc', label: 'Full code flow, concurrent', unit: 'flows', prepare: async () => fullFlowRequests() },
];
