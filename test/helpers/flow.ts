/**
 * Authorization Code flow steps over real HTTP, for token and revocation
 * tests: register a client, run the browser step, exchange, refresh, revoke.
 */
import { randomBytes, randomInt } from 'node:crypto';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { expect } from 'vitest';
import { readJson } from './bearer.ts';
import { authorizeUrl, pkcePair, postForm, register } from './oauth.ts';
import { isolatedDatabase } from './postgres-database.ts';
import { startTestServer, type TestServer, type TestServerOptions } from './server.ts';
import { freshDatabaseUrl, type StoreKind } from './stores.ts';
import { UserAgent } from './user-agent.ts';

export type FormResponse = Awaited<ReturnType<typeof postForm>>;

/** Request fields to change: a string replaces or adds the field, undefined removes it. */
export type Overrides = Record<string, string | undefined>;

export interface FlowServer extends TestServer {
  /** The DATABASE_URL the server runs on, to read its rows directly. */
  databaseUrl: string;
  /** An owner who approves the authorizations. */
  user: { email: string; password: string; id: string };
  tokenEndpoint: string;
  revocationEndpoint: string;
  /**
   * Stops the server's clock at its current time (every request then sees
   * the same millisecond, advance() moves it) until the returned function
   * restarts it.
   */
  freezeClock(): () => void;
  /** Closes the server and drops its database. */
  stop(): Promise<void>;
}

/** The real app on a database of its own (a fresh SQLite file or a fresh PostgreSQL database). */
export async function startFlowServer(kind: StoreKind, env: Record<string, string> = {}, options: TestServerOptions = {}): Promise<FlowServer> {
  const isolated = await isolatedDatabase(kind);
  const databaseUrl = isolated.env.DATABASE_URL ?? (await freshDatabaseUrl(kind));
  const server = await startTestServer(kind, { ...env, DATABASE_URL: databaseUrl }, options);
  const user = await server.addUser('owner');
  return {
    ...server,
    databaseUrl,
    user,
    tokenEndpoint: `${server.issuer}/api/oauth/token`,
    revocationEndpoint: `${server.issuer}/api/oauth/revoke`,
    freezeClock: () => server.freeze(),
    async stop() {
      await server.close();
      await isolated.drop();
    },
  };
}

export interface RegisteredClient {
  clientId: string;
  clientSecret?: string;
}

export interface ClientOptions {
  /** token_endpoint_auth_method client_secret_post instead of none. */
  confidential?: boolean;
  grantTypes?: string[];
}

export const REGISTERED_REDIRECT_URI = 'http://127.0.0.1/callback';

export async function registerClient(issuer: string, opts: ClientOptions = {}): Promise<RegisteredClient> {
  const { status, json } = await register(issuer, {
    client_name: opts.confidential ? 'Test confidential app' : 'Test CLI',
    redirect_uris: [REGISTERED_REDIRECT_URI],
    token_endpoint_auth_method: opts.confidential ? 'client_secret_post' : 'none',
    ...(opts.grantTypes ? { grant_types: opts.grantTypes } : {}),
  });
  if (status !== 201) throw new Error(`registration failed (${status}): ${JSON.stringify(json)}`);
  const clientId = json.client_id as string;
  if (!opts.confidential) return { clientId };
  if (typeof json.client_secret !== 'string') throw new Error('a client_secret_post registration returned no client_secret');
  return { clientId, clientSecret: json.client_secret };
}

export interface CodeFlow extends RegisteredClient {
  code: string;
  /** The redirect_uri sent to the authorization endpoint (loopback, with a port). */
  redirectUri: string;
  verifier: string;
}

export interface FlowOptions extends ClientOptions {
  /** Reuse this client instead of registering a new one. */
  client?: RegisteredClient;
  scope?: string;
  /** RFC 8707 resource sent to the authorization endpoint. */
  resource?: string;
  /** Port of the loopback redirect URI; random when absent. */
  port?: number;
  /** The PKCE code_verifier (its S256 challenge is sent); random when absent. */
  verifier?: string;
}

export const DEFAULT_SCOPE = 'courses:read students:read';

/**
 * A loopback redirect URI on a random port other than the server's own: a
 * listener port that happened to equal the server's would send the redirect
 * back to the server, which has no /callback.
 */
export function loopbackRedirect(issuer: string, port?: number): string {
  const taken = Number(new URL(issuer).port);
  let chosen = port ?? randomInt(20_000, 60_000);
  while (port === undefined && chosen === taken) chosen = randomInt(20_000, 60_000);
  return `http://127.0.0.1:${chosen}/callback`;
}

/** Registers a client (unless given one), signs in and approves: the code the client's listener receives. */
export async function authorizeFlow(server: FlowServer, opts: FlowOptions = {}): Promise<CodeFlow> {
  const client = opts.client ?? (await registerClient(server.issuer, opts));
  const { verifier, challenge } = pkcePair(opts.verifier);
  const redirectUri = loopbackRedirect(server.issuer, opts.port);
  const state = randomBytes(8).toString('hex');
  const url = authorizeUrl(server.issuer, {
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: redirectUri,
    scope: opts.scope ?? DEFAULT_SCOPE,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
    ...(opts.resource ? { resource: opts.resource } : {}),
  });
  const callback = await new UserAgent(server.issuer).authorize(url, server.user);
  const code = callback.searchParams.get('code');
  if (!code || callback.searchParams.get('state') !== state) {
    throw new Error(`authorization did not return a code: ${callback.href}`);
  }
  return { ...client, code, redirectUri, verifier };
}

function applyOverrides(fields: Overrides, overrides: Overrides): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...fields, ...overrides })) if (v !== undefined) out[k] = v;
  return out;
}

/** The token request of the authorization_code grant (client_secret_post when the client has a secret). */
export function codeExchangeFields(flow: CodeFlow, overrides: Overrides = {}): Record<string, string> {
  return applyOverrides(
    {
      grant_type: 'authorization_code',
      code: flow.code,
      redirect_uri: flow.redirectUri,
      client_id: flow.clientId,
      code_verifier: flow.verifier,
      client_secret: flow.clientSecret,
    },
    overrides,
  );
}

export function exchangeCode(server: FlowServer, flow: CodeFlow, overrides: Overrides = {}, headers: Record<string, string> = {}): Promise<FormResponse> {
  return postForm(server.tokenEndpoint, codeExchangeFields(flow, overrides), headers);
}

export interface TokenSet {
  access_token: string;
  token_type: string;
  expires_in: number;
  refresh_token?: string;
  scope: string;
}

function tokensOf(res: FormResponse, what: string): TokenSet {
  if (res.status !== 200) throw new Error(`${what} failed (${res.status}): ${res.text}`);
  return res.json as unknown as TokenSet;
}

/** authorize → token, expecting success. */
export async function obtainTokens(server: FlowServer, opts: FlowOptions = {}, overrides: Overrides = {}): Promise<{ flow: CodeFlow; tokens: TokenSet }> {
  const flow = await authorizeFlow(server, opts);
  return { flow, tokens: tokensOf(await exchangeCode(server, flow, overrides), 'code exchange') };
}

export function refreshRequest(server: FlowServer, client: RegisteredClient, refreshToken: string, overrides: Overrides = {}): Promise<FormResponse> {
  return postForm(server.tokenEndpoint, applyOverrides({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client.clientId, client_secret: client.clientSecret }, overrides));
}

export async function refreshTokens(server: FlowServer, client: RegisteredClient, refreshToken: string, overrides: Overrides = {}): Promise<TokenSet> {
  return tokensOf(await refreshRequest(server, client, refreshToken, overrides), 'refresh');
}

export function revokeRequest(server: FlowServer, client: RegisteredClient, token: string, overrides: Overrides = {}): Promise<FormResponse> {
  return postForm(server.revocationEndpoint, applyOverrides({ token, client_id: client.clientId, client_secret: client.clientSecret }, overrides));
}

/** RFC 7662 introspection by the client the token was issued to: whether the server still honours it. */
export async function isActive(server: FlowServer, client: RegisteredClient, token: string): Promise<boolean> {
  const res = await postForm(`${server.issuer}/api/oauth/introspect`, applyOverrides({ token, client_id: client.clientId, client_secret: client.clientSecret }, {}));
  if (res.status !== 200 || typeof res.json.active !== 'boolean') throw new Error(`introspection failed (${res.status}): ${res.text}`);
  return res.json.active;
}

/** A POST with a body sent exactly as given (duplicated fields, other content types). */
export async function postRaw(url: string, body: string, contentType: string, headers: Record<string, string> = {}): Promise<FormResponse> {
  return readJson(await fetch(url, { method: 'POST', headers: { 'content-type': contentType, ...headers }, body }));
}

/** Exactly this status and this JSON body (for an error: the contract's code and its very description). */
export function expectBody(res: FormResponse, status: number, body: Record<string, unknown>): void {
  expect({ status: res.status, body: res.json }, res.text).toEqual({ status, body });
}

/** RFC 6749 §5.2 error response: this status and exactly {error, error_description}, the description non-empty. */
export function expectOAuthError(res: FormResponse, status: number, error: string): void {
  expect({ status: res.status, body: res.json }, res.text).toEqual({
    status,
    body: { error, error_description: expect.stringMatching(/\S/) },
  });
}

/**
 * Every row of every table of the server's database, as one JSON string:
 * what an attacker holding a copy of the database would read.
 */
export async function databaseDump(databaseUrl: string): Promise<string> {
  if (databaseUrl.startsWith('postgres')) {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const tables = await client.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'");
      const dump: Record<string, unknown[]> = {};
      for (const { table_name } of tables.rows) dump[table_name] = (await client.query(`SELECT * FROM "${table_name}"`)).rows;
      return JSON.stringify(dump);
    } finally {
      await client.end();
    }
  }
  const db = new SQLite(databaseUrl, { readonly: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
    const dump: Record<string, unknown[]> = {};
    for (const { name } of tables) dump[name] = db.prepare(`SELECT * FROM "${name}"`).all();
    return JSON.stringify(dump);
  } finally {
    db.close();
  }
}
