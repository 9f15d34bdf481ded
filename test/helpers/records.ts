/**
 * Calls to the /api/v1 record routes over real HTTP, tokens by scope (one
 * sign-in per distinct scope string), and records made from the area
 * declarations, so that tests cover every area without listing them.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { AREAS, type AreaDef } from '../../src/platform/areas.ts';
import { recordToRow, type FieldDef } from '../../src/platform/fields.ts';
import { SCOPE_NAMES, type Scope } from '../../src/access/scopes.ts';
import { contractOf } from './area-contract.ts';
import { readJson, type JsonResponse } from './bearer.ts';
import { exchangeCode, loopbackRedirect, registerClient, startFlowServer, type FlowServer, type RegisteredClient, type TokenSet } from './flow.ts';
import { authorizeUrl, pkcePair } from './oauth.ts';
import type { StoreKind } from './stores.ts';
import { UserAgent } from './user-agent.ts';

export const API = '/api/v1';
export const ALL_SCOPES = SCOPE_NAMES.join(' ');
export const IDENTITY_SCOPES = 'openid profile email account:read account:write';

export interface ApiCall {
  token?: string;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent exactly as given, with `contentType` (none when absent). */
  raw?: string | Uint8Array<ArrayBuffer>;
  contentType?: string;
}

export interface ApiResponse extends JsonResponse {
  /** `json.data` of a list response. */
  data: Record<string, unknown>[];
}

/** One request to `/api/v1{path}`. */
export async function api(issuer: string, method: string, path: string, call: ApiCall = {}): Promise<ApiResponse> {
  const headers: Record<string, string> = {};
  if (call.token !== undefined) headers.authorization = `Bearer ${call.token}`;
  let body: string | Uint8Array<ArrayBuffer> | undefined;
  if (call.raw !== undefined) {
    body = call.raw;
    if (call.contentType !== undefined) headers['content-type'] = call.contentType;
  } else if (call.body !== undefined) {
    body = JSON.stringify(call.body);
    headers['content-type'] = call.contentType ?? 'application/json';
  }
  const res = await fetch(`${issuer}${API}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  const out = await readJson(res);
  return { ...out, data: Array.isArray(out.json.data) ? (out.json.data as Record<string, unknown>[]) : [] };
}

/**
 * Access tokens of a user by requested scope, each obtained once through the
 * real flow. One client and a few browser sessions serve them all, so the
 * user signs in once per session (sign-in is rate limited) and then only
 * approves. The granted scope must be the requested one.
 */
export function tokenSource(server: FlowServer, user: FlowServer['user'] = server.user, sessions = 3, sharedClient?: Promise<RegisteredClient>): (scope: string) => Promise<string> {
  const cache = new Map<string, Promise<string>>();
  // One client of its own unless given one to share with another user's tokens.
  let client: Promise<RegisteredClient> | undefined = sharedClient;
  // Authorizations within one session run one at a time: they share its session and CSRF cookies.
  const agents = Array.from({ length: sessions }, () => ({ agent: new UserAgent(server.issuer), queue: Promise.resolve() as Promise<unknown> }));
  let next = 0;

  async function mint(agent: UserAgent, scope: string): Promise<string> {
    client ??= registerClient(server.issuer);
    const registered = await client;
    const { verifier, challenge } = pkcePair();
    const redirectUri = loopbackRedirect(server.issuer);
    const state = randomBytes(8).toString('hex');
    const callback = await agent.authorize(
      authorizeUrl(server.issuer, {
        response_type: 'code',
        client_id: registered.clientId,
        redirect_uri: redirectUri,
        scope,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state,
      }),
      user,
    );
    const code = callback.searchParams.get('code');
    if (!code || callback.searchParams.get('state') !== state) throw new Error(`authorization did not return a code: ${callback.href}`);
    const res = await exchangeCode(server, { ...registered, code, redirectUri, verifier });
    if (res.status !== 200) throw new Error(`code exchange failed (${res.status}): ${res.text}`);
    const tokens = res.json as unknown as TokenSet;
    if (tokens.scope.split(' ').sort().join(' ') !== scope.split(' ').sort().join(' ')) {
      throw new Error(`asked for "${scope}", was granted "${tokens.scope}"`);
    }
    return tokens.access_token;
  }

  return (scope) => {
    let token = cache.get(scope);
    if (!token) {
      const slot = agents[next++ % agents.length]!;
      token = slot.queue.then(() => mint(slot.agent, scope));
      slot.queue = token.catch(() => undefined);
      cache.set(scope, token);
    }
    return token;
  };
}

/** Every scope but these, as a scope string. */
export function allScopesBut(...left: Scope[]): string {
  return SCOPE_NAMES.filter((s) => !left.includes(s)).join(' ');
}

export const marker = (prefix = 'm') => `${prefix}${randomBytes(5).toString('hex')}`;

export const areaOf = (name: string): AreaDef => {
  const area = (AREAS as Record<string, AreaDef>)[name];
  if (!area) throw new Error(`no area ${name}`);
  return area;
};

/** The public view's fields, from the contract stated by hand (never from the area's own `public` flags). */
export const publicFieldNames = (area: AreaDef): string[] => contractOf(area.name).publicView?.fields ?? [];

/** The keys a record of the area has in a view, sorted. */
export function recordKeys(area: AreaDef, view: 'full' | 'public'): string[] {
  const fields = view === 'full' ? Object.keys(area.fields) : publicFieldNames(area);
  return ['id', ...fields, 'created_at', 'updated_at'].sort();
}

export function expectView(area: AreaDef, record: Record<string, unknown>, view: 'full' | 'public'): void {
  expect(Object.keys(record).sort(), `${area.name} ${view} view of ${JSON.stringify(record)}`).toEqual(recordKeys(area, view));
}

/** A future moment, whole seconds, days from now. */
export const future = (days = 30) => new Date(Math.floor(Date.now() / 1000) * 1000 + days * 86_400_000).toISOString();
export const past = (days = 30) => new Date(Math.floor(Date.now() / 1000) * 1000 - days * 86_400_000).toISOString();

/** A valid value for a field (refs excepted), unique where the type allows. */
export function sampleValue(name: string, f: FieldDef): unknown {
  const tag = marker('');
  switch (f.type) {
    case 'string':
      return `${name} ${tag}`.slice(0, f.max ?? 200);
    case 'text':
      return `Some ${name} ${tag}`;
    case 'email':
      return `${name}-${tag}@example.test`;
    case 'url':
      return `https://example.test/${tag}`;
    case 'integer':
      return f.min ?? 1;
    case 'boolean':
      return true;
    case 'datetime':
      return future();
    case 'enum':
      return f.enum?.includes('published') ? 'published' : f.enum![0];
    case 'json':
      return f.default ?? [];
    case 'ref':
      throw new Error(`${name} is a reference`);
  }
}

/**
 * Makes records through the API with an owner token (or, for read-only
 * areas, straight into the store): each call makes fresh parents as well, so
 * compound unique keys never clash.
 */
export class RecordMaker {
  constructor(
    private readonly server: FlowServer,
    private readonly ownerToken: () => Promise<string>,
  ) {}

  /** A valid create body for the area: its required fields, plus a published status when it has one. */
  async input(area: AreaDef, extra: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const body: Record<string, unknown> = {};
    for (const [name, f] of Object.entries(area.fields)) {
      if (f.readOnly || name in extra) continue;
      const wanted = f.required || (name === 'status' && f.enum?.includes('published'));
      if (!wanted) continue;
      body[name] = f.type === 'ref' ? (await this.make(f.ref!)).id : sampleValue(name, f);
    }
    return { ...body, ...extra };
  }

  async make(areaName: string, extra: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const area = areaOf(areaName);
    if (!area.writeScope) return this.insert(area, await this.input(area, extra));
    const res = await api(this.server.issuer, 'POST', area.path, { token: await this.ownerToken(), body: await this.input(area, extra) });
    if (res.status !== 201) throw new Error(`making a ${area.label} failed (${res.status}): ${res.text}`);
    return res.json;
  }

  /** A row written straight into the store, for areas the API only reads. */
  async insert(area: AreaDef, values: Record<string, unknown>): Promise<Record<string, unknown>> {
    const now = this.server.deps.now();
    const defaults: Record<string, unknown> = {};
    for (const [name, f] of Object.entries(area.fields)) if (f.default !== undefined) defaults[name] = f.default;
    const id = `${area.idPrefix}_${randomBytes(9).toString('base64url')}`;
    await this.server.deps.store.records.insert(area.name, {
      ...recordToRow(area.fields, defaults),
      ...recordToRow(area.fields, values),
      id,
      created_at: now,
      updated_at: now,
    });
    return { id, ...values };
  }
}

/** RFC 6749 §5.2 error body with this status. */
export function expectError(res: JsonResponse, status: number, error: string): void {
  expect({ status: res.status, body: res.json }, res.text).toEqual({
    status,
    body: { error, error_description: expect.stringMatching(/\S/) },
  });
}

export interface RecordsServer {
  server: FlowServer;
  /** Tokens of the server's owner by scope. */
  token: (scope: string) => Promise<string>;
  maker: RecordMaker;
  /** A request with the owner's all-scope token; `body` is sent as JSON. */
  owner(method: string, path: string, body?: unknown): Promise<ApiResponse>;
  /** A request without any token. */
  anonymous(method: string, path: string): Promise<ApiResponse>;
  /** How many rows the area's table holds. */
  count(areaName: string): Promise<number>;
}

export async function startRecordsServer(kind: StoreKind): Promise<RecordsServer> {
  const server = await startFlowServer(kind);
  const token = tokenSource(server);
  const ownerToken = () => token(ALL_SCOPES);
  return {
    server,
    token,
    maker: new RecordMaker(server, ownerToken),
    owner: async (method, path, body) => api(server.issuer, method, path, { token: await ownerToken(), ...(body !== undefined ? { body } : {}) }),
    anonymous: (method, path) => api(server.issuer, method, path),
    count: (areaName) => server.deps.store.records.count(areaName, []),
  };
}
