/**
 * Calls to protected endpoints over real HTTP and a strict reader of the
 * RFC 6750 §3 WWW-Authenticate challenge they answer with.
 */

export interface JsonResponse {
  status: number;
  headers: Headers;
  json: Record<string, unknown>;
  text: string;
}

export async function readJson(res: Response): Promise<JsonResponse> {
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    /* not JSON: json stays empty and the test sees text */
  }
  return { status: res.status, headers: res.headers, json, text };
}

export interface ProtectedCall {
  /** The Authorization header; absent when undefined. */
  authorization?: string;
  /** Extra query parameters. */
  query?: Record<string, string>;
  /** POST with this form body instead of GET. */
  form?: Record<string, string>;
}

/** One call to GET (or POST) /api/oauth/userinfo. */
export async function callUserinfo(issuer: string, call: ProtectedCall = {}): Promise<JsonResponse> {
  const url = new URL(`${issuer}/api/oauth/userinfo`);
  for (const [k, v] of Object.entries(call.query ?? {})) url.searchParams.set(k, v);
  const headers: Record<string, string> = {};
  if (call.authorization !== undefined) headers.authorization = call.authorization;
  if (call.form) headers['content-type'] = 'application/x-www-form-urlencoded';
  const res = await fetch(url, {
    method: call.form ? 'POST' : 'GET',
    headers,
    ...(call.form ? { body: new URLSearchParams(call.form).toString() } : {}),
  });
  return readJson(res);
}

export interface Challenge {
  scheme: string;
  params: Record<string, string>;
}

/**
 * Parses `Scheme k="v", k="v"` (RFC 7235 §2.1 with quoted-string values).
 * Throws when the header is absent or anything in it does not parse, so a
 * sloppy challenge fails the test instead of being half read.
 */
export function parseChallenge(header: string | null): Challenge {
  if (header === null) throw new Error('no WWW-Authenticate header');
  const head = /^([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*) +/.exec(header);
  if (!head) throw new Error(`WWW-Authenticate has no auth scheme: ${header}`);
  const params: Record<string, string> = {};
  let rest = header.slice(head[0].length);
  const param = /^([A-Za-z_][A-Za-z0-9_-]*)="((?:[^"\\]|\\.)*)"(?: *, *|$)/;
  while (rest.length > 0) {
    const m = param.exec(rest);
    if (!m) throw new Error(`WWW-Authenticate does not parse at: ${rest}`);
    const name = m[1]!.toLowerCase();
    if (name in params) throw new Error(`WWW-Authenticate repeats ${name}`);
    params[name] = m[2]!.replace(/\\(.)/g, '$1');
    rest = rest.slice(m[0].length);
  }
  return { scheme: head[1]!, params };
}
