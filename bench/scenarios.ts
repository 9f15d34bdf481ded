/**
 * What each scenario sends. A scenario is prepared against a running Lyceum
 * server (clients, tokens) and returns autocannon request sequences.
 */
import { fullFlowRequests } from './flow-requests.ts';
import { SCHOOL_SCENARIOS } from './school-scenarios.ts';
import type { LoadRequest } from './load.ts';
import { Browser, obtainTokenSets, READ_SCOPE, REGISTRATION_BODY, refreshBody, registerClient, type TokenSet } from './oauth-client.ts';

export interface Prepared {
  requests: LoadRequest[];
  /** Sent meanwhile, one at a time on a connection of its own, not measured: the work the measured requests meet. */
  background?: LoadRequest[];
  /** Units of work completed (flows); requests when absent. */
  completions?: () => number;
}

export interface Scenario {
  id: string;
  label: string;
  /** The bare Fastify route it is shown beside: GET / or the form POST (none for the flows). */
  bare?: 'get' | 'post';
  /** Connections of this scenario when not the run's default. */
  connections?: number;
  prepare(ctx: ServerContext): Promise<Prepared>;
  /** The same requests prepared against the node-oidc-provider anchor (bench/anchor-server.ts), measured in the same run. */
  anchor?(origin: string, chains: number): Promise<Prepared>;
}

/** What every scenario against one server shares: a signed-in browser, a client, tokens. */
export interface ServerContext {
  origin: string;
  user: { email: string; password: string };
  browser: Browser;
  clientId: string;
  /** openid profile email students:read courses:read */
  reader: TokenSet;
  /** The school's staff reads: students:read courses:read analytics:read */
  staff: TokenSet;
  /** Spare refresh tokens of `clientId`, each starting its own rotation chain. */
  refreshPool: string[];
  /** How many the pool is topped up to before each refresh scenario. */
  refreshChains: number;
}

export async function prepareServer(origin: string, user: { email: string; password: string }, refreshChains: number): Promise<ServerContext> {
  const browser = new Browser(origin);
  await browser.signIn(user);
  const clientId = await registerClient(origin);
  const [reader] = await obtainTokenSets(browser, clientId, 1);
  const [staff] = await obtainTokenSets(browser, clientId, 1, 'students:read courses:read analytics:read');
  const pool = await obtainTokenSets(browser, clientId, refreshChains, READ_SCOPE);
  return { origin, user, browser, clientId, reader: reader!, staff: staff!, refreshPool: pool.map((t) => t.refresh_token), refreshChains };
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const bearer = (t: TokenSet) => ({ authorization: `Bearer ${t.access_token}` });
const simple = (requests: LoadRequest[]) => async (): Promise<Prepared> => ({ requests });
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/**
 * POST /mcp, anonymous, after an initialize as a client makes it: the warm
 * tools/list, or a tools/call of the catalog read (list_records of courses,
 * the MCP twin of GET /api/v1/courses, so the two compare in one run).
 */
const prepareMcp =
  (method: 'tools/list' | 'tools/call') =>
  async (ctx: ServerContext): Promise<Prepared> => {
    const rpc = async (body: unknown, headers: Record<string, string> = {}) => {
      const res = await fetch(`${ctx.origin}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, ...headers }, body: JSON.stringify(body) });
      return { status: res.status, json: (await res.json().catch(() => ({}))) as { result?: { protocolVersion?: string; tools?: { name: string }[] } } };
    };
    const params = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'lyceum-bench', version: '1' } };
    const init = await rpc({ jsonrpc: '2.0', id: 1, method: 'initialize', params });
    if (init.status !== 200) throw new Error(`MCP initialize failed (${init.status}): ${JSON.stringify(init.json)}`);
    const version = { 'mcp-protocol-version': String(init.json.result?.protocolVersion ?? params.protocolVersion) };
    const tools = (await rpc({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, version)).json.result?.tools ?? [];
    if (!tools.some((t) => t.name === 'list_records')) throw new Error('list_records is not listed to anonymous callers');
    const body = JSON.stringify(method === 'tools/list' ? { jsonrpc: '2.0', id: 3, method } : { jsonrpc: '2.0', id: 3, method, params: { name: 'list_records', arguments: { area: 'courses' } } });
    const verify = (answer: string) => answer.includes('"result"') && !answer.includes('"isError":true');
    return { requests: [{ method: 'POST', path: '/mcp', headers: { ...MCP_HEADERS, ...version }, body, verify }] };
  };

/**
 * Refresh grant: each request takes a live refresh token from the pool and
 * puts its successor back. Requests still in flight when a run stops take
 * their tokens with them, so the pool is topped up before each use.
 */
async function refreshRequests(clientId: string, pool: string[], chains: number, mint: (count: number) => Promise<string[]>): Promise<Prepared> {
  const missing = chains - pool.length;
  if (missing > 0) pool.push(...(await mint(missing)));
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
          return { ...req, body: refreshBody(clientId, token) };
        },
        onResponse(status, body, context) {
          pool.push(status === 200 ? (JSON.parse(body) as TokenSet).refresh_token : (context.token as string));
        },
      },
    ],
  };
}

const prepareRefresh = (ctx: ServerContext) =>
  refreshRequests(ctx.clientId, ctx.refreshPool, ctx.refreshChains, async (count) => (await obtainTokenSets(ctx.browser, ctx.clientId, count)).map((t) => t.refresh_token));

/** The anchor's refresh tokens come from its minting route (it has no sign-in pages), one grant each. */
async function prepareAnchorRefresh(origin: string, chains: number): Promise<Prepared> {
  const clientId = await registerClient(origin, { grant_types: ['authorization_code', 'refresh_token'] });
  return refreshRequests(clientId, [], chains, async (count) => {
    const res = await fetch(`${origin}/bench/refresh-tokens?client_id=${encodeURIComponent(clientId)}&count=${count}`, { method: 'POST' });
    if (res.status !== 200) throw new Error(`the anchor minted no refresh tokens (${res.status}): ${await res.text()}`);
    return (await res.json()) as string[];
  });
}

const REGISTRATION: LoadRequest = { method: 'POST', path: '/api/oauth/register', headers: { 'content-type': 'application/json' }, body: REGISTRATION_BODY, expectStatus: 201 };

export const SCENARIOS: Scenario[] = [
  { id: 'discovery', label: 'Discovery GET /.well-known/openid-configuration', bare: 'get', prepare: simple([{ path: '/.well-known/openid-configuration' }]) },
  { id: 'catalog', label: 'Anonymous catalog GET /api/v1/courses', bare: 'get', prepare: simple([{ path: '/api/v1/courses' }]) },
  { id: 'bearer-read', label: 'Bearer read GET /api/v1/students', bare: 'get', prepare: async (ctx) => ({ requests: [{ path: '/api/v1/students', headers: bearer(ctx.reader) }] }) },
  { id: 'userinfo', label: 'UserInfo GET /api/oauth/userinfo', bare: 'get', prepare: async (ctx) => ({ requests: [{ path: '/api/oauth/userinfo', headers: bearer(ctx.reader) }] }) },
  {
    id: 'introspection',
    label: 'Introspection POST /api/oauth/introspect',
    bare: 'post',
    prepare: async (ctx) => {
      const body = new URLSearchParams({ token: ctx.reader.access_token, client_id: ctx.clientId }).toString();
      return { requests: [{ method: 'POST', path: '/api/oauth/introspect', headers: FORM, body, verify: (answer) => answer.includes('"active":true') }] };
    },
  },
  {
    id: 'registration',
    label: 'Registration POST /api/oauth/register',
    bare: 'post',
    prepare: simple([REGISTRATION]),
    anchor: simple([REGISTRATION]),
  },
  { id: 'refresh', label: 'Refresh grant POST /api/oauth/token', bare: 'post', prepare: prepareRefresh, anchor: prepareAnchorRefresh },
  { id: 'mcp-list', label: 'MCP tools/list POST /mcp', bare: 'post', prepare: prepareMcp('tools/list') },
  { id: 'mcp', label: 'MCP tools/call list_records POST /mcp', bare: 'post', prepare: prepareMcp('tools/call') },
  { id: 'flow-seq', label: 'Full code flow, 1 connection (flows)', connections: 1, prepare: async (ctx) => fullFlowRequests(ctx.user) },
  { id: 'flow-conc', label: 'Full code flow, concurrent (flows)', prepare: async (ctx) => fullFlowRequests(ctx.user) },
  ...SCHOOL_SCENARIOS,
];
