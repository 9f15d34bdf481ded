import { createHash, randomBytes } from 'node:crypto';
import { readJson } from './bearer.ts';

/** A PKCE verifier (random unless given) and its S256 challenge. */
export function pkcePair(verifier = randomBytes(32).toString('base64url')): { verifier: string; challenge: string } {
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export async function register(issuer: string, body: Record<string, unknown>): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${issuer}/api/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

export async function registerPublicClient(issuer: string, extra: Record<string, unknown> = {}): Promise<string> {
  const { status, json } = await register(issuer, {
    client_name: 'Test CLI',
    redirect_uris: ['http://127.0.0.1/callback'],
    token_endpoint_auth_method: 'none',
    ...extra,
  });
  if (status !== 201) throw new Error(`registration failed: ${JSON.stringify(json)}`);
  return json.client_id as string;
}

export async function postForm(url: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  });
  return readJson(res);
}

export function authorizeUrl(issuer: string, params: Record<string, string>): string {
  return `${issuer}/oauth/authorize?${new URLSearchParams(params).toString()}`;
}

/** Authorization request parameters where an array repeats a parameter and undefined leaves it out. */
export type AuthorizeParams = Record<string, string | string[] | undefined>;

/** The query string of such parameters, repeats and all. */
export function repeatedQuery(params: AuthorizeParams): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) q.append(k, one);
  }
  return q.toString();
}
