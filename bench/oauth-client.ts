/**
 * The OAuth steps the scenarios need before they start (clients, a signed-in
 * browser, token sets), over plain fetch, plus the small parsers the load
 * scenarios share with them.
 */
import { createHash, randomBytes } from 'node:crypto';

export const REDIRECT_URI = 'http://127.0.0.1:53682/callback';
export const READ_SCOPE = 'openid profile email students:read courses:read';

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export const REGISTRATION_BODY = JSON.stringify({
  client_name: 'Bench CLI',
  application_type: 'native',
  redirect_uris: ['http://127.0.0.1/callback'],
  token_endpoint_auth_method: 'none',
});

export function authorizePath(clientId: string, challenge: string, scope = READ_SCOPE): string {
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    scope,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: randomBytes(8).toString('hex'),
  });
  return `/oauth/authorize?${params.toString()}`;
}

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
const decode = (s: string) => s.replace(/&(amp|lt|gt|quot|#39);/g, (m) => ENTITIES[m] ?? m);

/** The fields a browser sends untouched from the form posting to `action` on an HTML page: hidden ones and ticked boxes. */
export function formFields(html: string, action: string): Record<string, string> | undefined {
  for (const m of html.matchAll(/<form[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/g)) {
    if (decode(m[1]!) !== action) continue;
    const fields: Record<string, string> = {};
    for (const input of m[2]!.matchAll(/<input type="(hidden|checkbox)" name="([^"]*)" value="([^"]*)"( checked)?>/g)) {
      if (input[1] === 'hidden' || input[4]) fields[decode(input[2]!)] = decode(input[3]!);
    }
    return fields;
  }
  return undefined;
}

/** Cookie jar update from Set-Cookie values (name=value only; the bench needs nothing else). */
export function keepCookies(jar: Record<string, string>, setCookie: string | string[] | undefined): void {
  for (const line of typeof setCookie === 'string' ? [setCookie] : (setCookie ?? [])) {
    const pair = line.split(';')[0]!;
    const eq = pair.indexOf('=');
    const name = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    if (value === '' || /max-age=0/i.test(line)) delete jar[name];
    else jar[name] = value;
  }
}

export const cookieHeader = (jar: Record<string, string>) =>
  Object.entries(jar)
    .map(([k, v]) => `${k}=${v}`)
    .join('; ');

export interface TokenSet {
  access_token: string;
  refresh_token: string;
  scope: string;
  id_token?: string;
}

/** A browser signed in as `user`, able to approve authorizations without signing in again. */
export class Browser {
  private jar: Record<string, string> = {};

  constructor(readonly origin: string) {}

  async request(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (Object.keys(this.jar).length) headers.set('cookie', cookieHeader(this.jar));
    const res = await fetch(this.origin + path, { ...init, headers, redirect: 'manual' });
    keepCookies(this.jar, res.headers.getSetCookie());
    return res;
  }

  private async postForm(path: string, fields: Record<string, string>): Promise<Response> {
    return this.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
  }

  async signIn(user: { email: string; password: string }): Promise<void> {
    const page = await this.request('/oauth/sign-in');
    const fields = formFields(await page.text(), '/oauth/sign-in');
    if (!fields) throw new Error(`no sign-in form (${page.status})`);
    const res = await this.postForm('/oauth/sign-in', { ...fields, ...user });
    await res.arrayBuffer();
    if (res.status !== 303) throw new Error(`sign-in failed (${res.status})`);
  }

  /** Authorization request → consent → approve: the code and the PKCE verifier. */
  async authorize(clientId: string, scope = READ_SCOPE): Promise<{ code: string; verifier: string }> {
    const { verifier, challenge } = pkce();
    const consent = await this.request(authorizePath(clientId, challenge, scope));
    const fields = formFields(await consent.text(), '/oauth/authorize/decision');
    if (!fields) throw new Error(`no consent form (${consent.status})`);
    const res = await this.postForm('/oauth/authorize/decision', { ...fields, decision: 'approve' });
    await res.arrayBuffer();
    const code = new URL(res.headers.get('location') ?? 'x:/').searchParams.get('code');
    if (!code) throw new Error(`no code (${res.status} ${res.headers.get('location')})`);
    return { code, verifier };
  }
}

export async function registerClient(origin: string, extra: Record<string, unknown> = {}): Promise<string> {
  const body = JSON.stringify({ ...(JSON.parse(REGISTRATION_BODY) as object), ...extra });
  const res = await fetch(`${origin}/api/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const json = (await res.json()) as { client_id?: string };
  if (res.status !== 201 || !json.client_id) throw new Error(`registration failed (${res.status}): ${JSON.stringify(json)}`);
  return json.client_id;
}

export function codeExchangeBody(clientId: string, code: string, verifier: string): string {
  return new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: clientId, code_verifier: verifier }).toString();
}

export function refreshBody(clientId: string, refreshToken: string): string {
  return new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }).toString();
}

async function tokenRequest(origin: string, body: string): Promise<TokenSet> {
  const res = await fetch(`${origin}/api/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
  const json = (await res.json()) as TokenSet;
  if (res.status !== 200) throw new Error(`token request failed (${res.status}): ${JSON.stringify(json)}`);
  return json;
}

/** `count` independent token sets for one client, through the whole code flow each. */
export async function obtainTokenSets(browser: Browser, clientId: string, count: number, scope = READ_SCOPE): Promise<TokenSet[]> {
  const sets: TokenSet[] = [];
  for (let i = 0; i < count; i++) {
    const { code, verifier } = await browser.authorize(clientId, scope);
    sets.push(await tokenRequest(browser.origin, codeExchangeBody(clientId, code, verifier)));
  }
  return sets;
}
