/**
 * The floor of the full code flow (bench/flow-requests.ts): the authorize
 * pages, the sign-in, the consent decision and the authorization_code grant,
 * each doing only the work its Lyceum step cannot avoid: validate the
 * request, read the session, verify the password with Lyceum's own argon2id
 * call, write the session, the code (and the consent grant) and the tokens,
 * sign one RS256 ID token, and answer minimal HTML pages carrying the hidden
 * fields the flow reads. Registration is in floor-routes.ts, whose token
 * route hands grant_type=authorization_code to the handler returned here.
 *
 * The CSRF token is an HMAC (per-process key) of a random secret kept in a
 * cookie, as @fastify/csrf-protection does with a cookie in Lyceum (which
 * also binds it to the session cookie and checks the origin first). The
 * authorization request travels in the consent form's hidden fields and is
 * validated again on the decision, as in Lyceum. The ID token is signed with
 * a key made at start: the bench does not verify it. Error paths are
 * minimal (a 4xx, never a success); prompt, max_age and resource, which the
 * bench never sends, are refused rather than half-done.
 */
import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SignJWT, type CryptoKey } from 'jose';
import { ROLE_SCOPES, type Role } from '../src/oauth/roles.ts';
import { SCOPE_NAMES } from '../src/oauth/scopes.ts';
import { newSalt, newSecret, PREFIX, sha256 } from '../src/oauth/tokens/secrets.ts';
import { verifyPassword } from '../src/users/passwords.ts';
import type { ClientRow, NewToken, SessionRow } from './floor-db.ts';
import { fail, LOOPBACK, seconds, type FloorSettings, type Form } from './floor-routes.ts';

export interface FlowSettings extends FloorSettings {
  sessionTtlSeconds: number;
  codeTtlSeconds: number;
  idTokenTtlSeconds: number;
  /** The ID-token signing key (RS256). */
  idTokenKey: { kid: string; key: CryptoKey };
}

/** Handles grant_type=authorization_code for an authenticated client allowed that grant. */
export type CodeGrant = (body: Form, client: ClientRow, wantsRefresh: boolean, reply: FastifyReply) => Promise<unknown>;

// Two cookie names like Lyceum's over plain http (src/web/session.ts also puts the issuer's port in them).
const SESSION = 'lyceum_session';
const CSRF = 'lyceum_csrf';
const SCOPES = new Set<string>(SCOPE_NAMES);
const HTML = 'text/html; charset=utf-8';
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
const RETURN_TO = /^\/oauth\/authorize\?[\x21-\x7e]{1,8000}$/;
const CARRIED = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'nonce', 'code_challenge', 'code_challenge_method'] as const;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
const hidden = (name: string, value: string) => `<input type="hidden" name="${name}" value="${esc(value)}">`;
const page = (title: string, body: string) => `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${esc(title)} · Lyceum</title></head>\n<body>\n${body}\n</body></html>\n`;
/** One value given once (a repeated parameter arrives as an array), or undefined. */
const one = (v: unknown) => (typeof v === 'string' ? v : undefined);
/** An optional parameter: absent, or given once and at most `max` characters. */
const fits = (v: unknown, max: number) => v === undefined || (typeof v === 'string' && v.length <= max);

function cookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** host + path and query of a loopback URI, without its port; undefined when not one. */
function portless(uri: string): string | undefined {
  const m = LOOPBACK.exec(uri);
  return m ? `${m[1]!.toLowerCase()} ${m[2] ?? '/'}` : undefined;
}

interface AuthorizationRequest {
  client: ClientRow;
  clientName: string;
  redirectUri: string;
  scopes: Set<string>;
  state: string | undefined;
  nonce: string | undefined;
  challenge: string;
  /** The carried parameters, for the consent form. */
  params: [string, string][];
}

export function registerFloorFlowRoutes(app: FastifyInstance, s: FlowSettings): CodeGrant {
  const { db, issuer } = s;
  // Lyceum's headers on these steps, errors included; the pages add their content type.
  const noStore = { ...s.security, 'cache-control': 'no-store' };
  const csrfKey = randomBytes(32);
  const csrfToken = (secret: string) => createHmac('sha256', csrfKey).update(secret).digest('base64url');

  /** The CSRF secret of the browser, set in a cookie when it has none yet. */
  function csrfSecret(request: FastifyRequest, reply: FastifyReply): string {
    const known = cookie(request, CSRF);
    if (known) return known;
    const secret = randomBytes(18).toString('base64url');
    reply.header('set-cookie', `${CSRF}=${secret}; Path=/; HttpOnly; SameSite=Lax`);
    return secret;
  }

  function csrfValid(request: FastifyRequest, body: Form): boolean {
    const secret = cookie(request, CSRF);
    const given = one(body._csrf);
    if (!secret || !given) return false;
    const [a, b] = [Buffer.from(given), Buffer.from(csrfToken(secret))];
    return a.length === b.length && timingSafeEqual(a, b);
  }

  function signedIn(request: FastifyRequest): SessionRow | undefined {
    const raw = cookie(request, SESSION);
    return raw && raw.length <= 200 ? db.session(sha256(raw), Date.now()) : undefined;
  }

  /** The authorization request's checks (client, redirect URI, response type, PKCE, scope), or undefined. */
  function validate(p: Form): AuthorizationRequest | undefined {
    const clientId = one(p.client_id);
    const client = clientId && clientId.length <= 200 ? db.client(clientId) : undefined;
    if (!client) return undefined;
    const metadata = JSON.parse(client.metadata) as { redirect_uris: string[]; client_name?: string };
    const redirectUri = one(p.redirect_uri);
    const requested = redirectUri && portless(redirectUri);
    if (!requested || !metadata.redirect_uris.some((r) => portless(r) === requested)) return undefined;
    if (one(p.response_type) !== 'code' || one(p.code_challenge_method) !== 'S256') return undefined;
    const challenge = one(p.code_challenge);
    if (!challenge || !CHALLENGE.test(challenge)) return undefined;
    const scope = one(p.scope);
    const scopes = new Set(scope?.split(' ').filter(Boolean));
    if (!scope || scope.length > 4000 || scopes.size === 0 || [...scopes].some((x) => !SCOPES.has(x))) return undefined;
    const [state, nonce] = [p.state, p.nonce];
    if (!fits(state, 2000) || !fits(nonce, 500)) return undefined;
    if (p.prompt !== undefined || p.max_age !== undefined || p.resource !== undefined) return undefined;
    const params: [string, string][] = [];
    for (const name of CARRIED) if (typeof p[name] === 'string') params.push([name, p[name]]);
    return { client, clientName: metadata.client_name ?? 'An app', redirectUri, scopes, state, nonce, challenge, params };
  }

  /** Requested ∩ what the user's role allows, in registry order (Lyceum's canonical scope). */
  const granted = (scopes: Set<string>, role: string) => {
    const allowed = new Set<string>(ROLE_SCOPES[role as Role] ?? []);
    return SCOPE_NAMES.filter((x) => scopes.has(x) && allowed.has(x));
  };

  app.get('/oauth/authorize', async (request, reply) => {
    reply.headers(noStore);
    const a = validate(request.query as Form);
    if (!a) return fail(reply, 400, 'invalid_request');
    const token = csrfToken(csrfSecret(request, reply));
    const user = signedIn(request);
    reply.header('content-type', HTML);
    if (!user) {
      return page(
        'Sign in',
        `<p><strong>${esc(a.clientName)}</strong> wants to connect to your Lyceum account. Sign in to continue.</p>
<form method="post" action="/oauth/sign-in">
${hidden('_csrf', token)}
${hidden('return_to', request.url)}
<input name="email" type="email" required> <input name="password" type="password" required> <button type="submit">Sign in</button>
</form>`,
      );
    }
    const scopes = granted(a.scopes, user.role);
    return page(
      `Allow ${a.clientName}?`,
      `<p>Allow <strong>${esc(a.clientName)}</strong> (${esc(a.client.id)}) to access the account of ${esc(user.email)}? It will be able to: ${scopes.join(', ') || 'nothing'}.</p>
<form method="post" action="/oauth/authorize/decision">
${hidden('_csrf', token)}
${a.params.map(([k, v]) => hidden(k, v)).join('\n')}
<button type="submit" name="decision" value="approve">Allow</button> <button type="submit" name="decision" value="deny">Deny</button>
</form>`,
    );
  });

  app.post('/oauth/sign-in', async (request, reply) => {
    reply.headers(noStore);
    const body = request.body as Form;
    if (!csrfValid(request, body)) return fail(reply, 403, 'invalid_csrf_token');
    const email = one(body.email)?.trim().toLowerCase() ?? '';
    const user = email && email.length <= 320 ? db.userByEmail(email) : undefined;
    // Lyceum's very call: argon2id, against a dummy hash when the email is unknown.
    const ok = await verifyPassword(user?.password_hash, one(body.password) ?? '');
    if (!user || !ok) return fail(reply, 401, 'invalid_credentials');
    // A fresh session id, never an old one (fixation); the old session, if any, ends.
    const old = cookie(request, SESSION);
    if (old && old.length <= 200) db.deleteSession(sha256(old));
    const session = newSecret(PREFIX.session);
    const now = Date.now();
    db.insertSession(sha256(session), user.id, now, now + s.sessionTtlSeconds * 1000);
    const returnTo = one(body.return_to);
    return reply
      .code(303)
      .header('set-cookie', `${SESSION}=${session}; Max-Age=${s.sessionTtlSeconds}; Path=/; HttpOnly; SameSite=Lax`)
      .header('location', returnTo && RETURN_TO.test(returnTo) ? returnTo : '/')
      .send();
  });

  app.post('/oauth/authorize/decision', async (request, reply) => {
    reply.headers(noStore);
    const body = request.body as Form;
    if (!csrfValid(request, body)) return fail(reply, 403, 'invalid_csrf_token');
    const a = validate(body);
    if (!a) return fail(reply, 400, 'invalid_request');
    const user = signedIn(request);
    if (!user) return fail(reply, 401, 'login_required');
    const url = new URL(a.redirectUri);
    const decision = one(body.decision);
    if (decision === 'approve') {
      const scope = granted(a.scopes, user.role).join(' ');
      if (!scope) return fail(reply, 400, 'invalid_scope');
      const code = newSecret(PREFIX.code);
      const now = Date.now();
      db.issueCode({
        hash: sha256(code),
        client_id: a.client.id,
        user_id: user.user_id,
        redirect_uri: a.redirectUri,
        scope,
        resource: null,
        nonce: a.nonce ?? null,
        code_challenge: a.challenge,
        auth_time: user.auth_time,
        family_id: randomUUID(),
        expires_at: now + s.codeTtlSeconds * 1000,
        created_at: now,
      });
      url.searchParams.append('code', code);
    } else if (decision === 'deny') url.searchParams.append('error', 'access_denied');
    else return fail(reply, 400, 'invalid_request');
    if (a.state !== undefined) url.searchParams.append('state', a.state);
    url.searchParams.append('iss', issuer);
    return reply.code(303).header('location', url.href).send();
  });

  return async (body, client, wantsRefresh, reply) => {
    const [code, redirectUri, verifier] = [one(body.code), one(body.redirect_uri), one(body.code_verifier)];
    if (!code || !redirectUri || !verifier || !VERIFIER.test(verifier)) return fail(reply, 400, 'invalid_request');
    const now = Date.now();
    let accessToken: string | undefined;
    let refreshToken: string | undefined;
    const hash = sha256(code);
    const c = db.exchange(hash, now, (c) => {
      // The code's client, expiry and redirect URI, then PKCE S256 (the challenge is no secret: a plain compare).
      if (c.client_id !== client.id || now >= c.expires_at || c.redirect_uri !== redirectUri || sha256(verifier) !== c.code_challenge) return [];
      accessToken = newSecret(PREFIX.access);
      const base = { client_id: client.id, user_id: c.user_id, scope: c.scope, resource: c.resource, family_id: c.family_id, auth_time: c.auth_time, created_at: now };
      const tokens: NewToken[] = [{ ...base, hash: sha256(accessToken), kind: 'access', expires_at: now + s.accessTtlSeconds * 1000, salt: null }];
      if (wantsRefresh) {
        refreshToken = newSecret(PREFIX.refresh);
        tokens.push({ ...base, hash: sha256(refreshToken), kind: 'refresh', expires_at: now + s.refreshTtlSeconds * 1000, salt: newSalt() });
      }
      return tokens;
    });
    if (!c) db.revokeCodeFamily(now, hash);
    if (!c || !accessToken) return fail(reply, 400, 'invalid_grant');
    const response: Record<string, unknown> = {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: s.accessTtlSeconds,
      ...(refreshToken ? { refresh_token: refreshToken } : {}),
      scope: c.scope,
    };
    if (c.scope.split(' ').includes('openid')) {
      // at_hash: the left half of the access token's SHA-256 (OIDC Core §3.1.3.6).
      const atHash = createHash('sha256').update(accessToken).digest().subarray(0, 16).toString('base64url');
      const iat = seconds(now);
      response.id_token = await new SignJWT({ auth_time: seconds(c.auth_time), ...(c.nonce ? { nonce: c.nonce } : {}), at_hash: atHash })
        .setProtectedHeader({ alg: 'RS256', kid: s.idTokenKey.kid, typ: 'JWT' })
        .setIssuer(issuer)
        .setSubject(c.user_id)
        .setAudience(client.id)
        .setIssuedAt(iat)
        .setExpirationTime(iat + s.idTokenTtlSeconds)
        .sign(s.idTokenKey.key);
    }
    return response;
  };
}
