/**
 * The floor endpoints: each does only the work its Lyceum endpoint cannot
 * avoid (parse the request, the database reads and writes, hashing and
 * minting secrets, the JSON answer with Lyceum's response headers) and
 * answers what Lyceum answers to the bench's requests. Error paths are
 * minimal: the bench never takes them. The code flow's steps are in
 * bench/floor-flow-routes.ts.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { deriveSecret, newSalt, newSecret, PREFIX, sha256 } from '../src/oauth/tokens/secrets.ts';
import type { FloorDb, NewToken, RecordRow, TokenRow } from './floor-db.ts';
import type { CodeGrant } from './floor-flow-routes.ts';

export interface FloorSettings {
  db: FloorDb;
  /** Lyceum's issuer (from its discovery document). */
  issuer: string;
  /** Lyceum's security headers, on every response. */
  security: Readonly<Record<string, string>>;
  accessTtlSeconds: number;
  refreshTtlSeconds: number;
  refreshGraceSeconds: number;
  /** grant_type=authorization_code (bench/floor-flow-routes.ts); refused when absent. */
  codeGrant?: CodeGrant;
}

const iso = (ms: number) => new Date(ms).toISOString();
export const seconds = (ms: number) => Math.floor(ms / 1000);
/** Loopback redirect URI: host, optional port, path and query (RFC 8252 §7.3: any port matches). */
export const LOOPBACK = /^http:\/\/(127\.0\.0\.1|\[::1\]|localhost)(?::\d{1,5})?([/?][^#\s\\]*)?$/i;

export type Form = Record<string, string | undefined>;

/** A student as GET /api/v1/students answers it. */
export const studentRecord = (r: RecordRow) => ({ id: r.id, name: r.name, email: r.email, status: r.status, user_id: r.user_id, notes: r.notes, created_at: iso(r.created_at), updated_at: iso(r.updated_at) });

/** A published course's public fields, as the anonymous GET /api/v1/courses answers them. */
export const courseRecord = (r: RecordRow) => ({
  id: r.id,
  title: r.title,
  slug: r.slug,
  summary: r.summary,
  description: r.description,
  level: r.level,
  language: r.language,
  price_cents: r.price_cents,
  lecturer_ids: r.lecturer_ids === null ? [] : JSON.parse(r.lecturer_ids as string),
  status: r.status,
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
});
export const fail = (reply: FastifyReply, status: number, error: string) => reply.code(status).send({ error });

export function registerFloorRoutes(app: FastifyInstance, s: FloorSettings): void {
  const { db, issuer } = s;
  const cors = { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'WWW-Authenticate' };
  const api = s.security;
  const userinfo = { ...s.security, ...cors, 'cache-control': 'no-store' };
  const oauth = { ...userinfo, pragma: 'no-cache' };

  /** The live access token of the Authorization header that carries `scope`, or undefined. */
  function bearer(request: FastifyRequest, scope: string): TokenRow | undefined {
    const header = request.headers.authorization;
    if (!header?.startsWith('Bearer ')) return undefined;
    const t = db.token(sha256(header.slice(7)));
    const live = t && t.kind === 'access' && t.revoked_at === null && Date.now() < t.expires_at && (t.resource === null || t.resource === issuer);
    return live && t.scope.split(' ').includes(scope) ? t : undefined;
  }

  /** A public client (client_id only) or client_secret_post. */
  function client(body: Form) {
    const c = body.client_id ? db.client(body.client_id) : undefined;
    if (!c) return undefined;
    if (c.secret_hash === null) return body.client_secret === undefined ? c : undefined;
    const given = Buffer.from(sha256(body.client_secret ?? ''));
    const stored = Buffer.from(c.secret_hash);
    return given.length === stored.length && timingSafeEqual(given, stored) ? c : undefined;
  }

  app.get('/api/oauth/userinfo', async (request, reply) => {
    reply.headers(userinfo);
    const t = bearer(request, 'openid');
    const user = t && db.user(t.user_id);
    if (!t || !user) return fail(reply, 401, 'invalid_token');
    const scopes = t.scope.split(' ');
    return {
      sub: user.id,
      ...(scopes.includes('profile') ? { name: user.name, preferred_username: user.email.split('@')[0], updated_at: seconds(user.updated_at), school_role: user.role } : {}),
      ...(scopes.includes('email') ? { email: user.email, email_verified: false } : {}),
    };
  });

  /** A first page as Lyceum's record store answers it: `limit` rows, a cursor when there is one more. */
  function firstPage(request: FastifyRequest, query: (limit: number) => RecordRow[], record: (r: RecordRow) => Record<string, unknown>) {
    const limit = Math.min(Math.max(Number((request.query as Form).limit ?? 20) || 20, 1), 100);
    const rows = query(limit + 1);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      data: page.map(record),
      ...(rows.length > limit && last ? { next_cursor: Buffer.from(JSON.stringify([last.created_at, last.id])).toString('base64url') } : {}),
    };
  }

  app.get('/api/v1/students', async (request, reply) => {
    reply.headers(api);
    if (!bearer(request, 'students:read')) return fail(reply, 401, 'invalid_token');
    return firstPage(request, db.students, studentRecord);
  });

  // Anonymous: the public fields of published courses (the bench sends no token).
  app.get('/api/v1/courses', async (request, reply) => {
    reply.headers(api);
    if (request.headers.authorization) return fail(reply, 400, 'invalid_request');
    return firstPage(request, db.publishedCourses, courseRecord);
  });

  app.post('/api/oauth/introspect', async (request, reply) => {
    reply.headers(oauth);
    const body = request.body as Form;
    if (!body.token) return fail(reply, 400, 'invalid_request');
    const c = client(body);
    if (!c) return fail(reply, 401, 'invalid_client');
    const t = db.token(sha256(body.token));
    const now = Date.now();
    const live = t && t.client_id === c.id && t.revoked_at === null && now < t.expires_at && (t.rotated_at === null || now <= t.rotated_at + s.refreshGraceSeconds * 1000);
    if (!live) return { active: false };
    return {
      active: true,
      scope: t.scope,
      client_id: t.client_id,
      sub: t.user_id,
      exp: seconds(t.expires_at),
      iat: seconds(t.created_at),
      auth_time: seconds(t.auth_time),
      iss: issuer,
      token_type: t.kind === 'access' ? 'Bearer' : 'refresh_token',
      aud: t.resource ?? [issuer, `${issuer}/mcp`],
    };
  });

  app.post('/api/oauth/token', async (request, reply) => {
    reply.headers(oauth);
    const body = request.body as Form;
    const grant = body.grant_type;
    if (grant !== 'refresh_token' && !(grant === 'authorization_code' && s.codeGrant)) return fail(reply, 400, 'unsupported_grant_type');
    const c = client(body);
    const grants = c ? (JSON.parse(c.metadata) as { grant_types: string[] }).grant_types : [];
    if (!c || !grants.includes(grant)) return fail(reply, 401, 'invalid_client');
    if (grant === 'authorization_code') return s.codeGrant!(body, c, grants.includes('refresh_token'), reply);
    if (!body.refresh_token) return fail(reply, 400, 'invalid_request');
    const now = Date.now();
    const t = db.token(sha256(body.refresh_token));
    if (!t || t.kind !== 'refresh' || t.revoked_at !== null || t.client_id !== c.id || now >= t.expires_at) return fail(reply, 400, 'invalid_grant');
    // The user must still exist (Lyceum also narrows the scope to the user's role: a few string compares).
    if (!db.user(t.user_id)) return fail(reply, 400, 'invalid_grant');
    const accessToken = deriveSecret(PREFIX.access, body.refresh_token, t.salt ?? '', 'access');
    const refreshToken = deriveSecret(PREFIX.refresh, body.refresh_token, t.salt ?? '', 'refresh');
    const base = { client_id: c.id, user_id: t.user_id, scope: t.scope, resource: t.resource, family_id: t.family_id, auth_time: t.auth_time, created_at: now };
    const access: NewToken = { ...base, hash: sha256(accessToken), kind: 'access', expires_at: now + s.accessTtlSeconds * 1000, salt: null };
    const refresh: NewToken = { ...base, hash: sha256(refreshToken), kind: 'refresh', expires_at: now + s.refreshTtlSeconds * 1000, salt: newSalt() };
    if (!db.rotate(t.hash, now, access, refresh)) return fail(reply, 400, 'invalid_grant');
    return { access_token: accessToken, token_type: 'Bearer', expires_in: s.accessTtlSeconds, refresh_token: refreshToken, scope: t.scope };
  });

  app.post('/api/oauth/register', async (request, reply) => {
    reply.headers(oauth);
    if (!request.headers['content-type']?.startsWith('application/json')) return fail(reply, 415, 'invalid_request');
    const b = request.body as Record<string, unknown> | null;
    const uris = b?.redirect_uris;
    if (!Array.isArray(uris) || uris.length === 0 || !uris.every((u) => typeof u === 'string' && LOOPBACK.test(u))) return fail(reply, 400, 'invalid_redirect_uri');
    const method = b!.token_endpoint_auth_method ?? 'none';
    if (method !== 'none' && method !== 'client_secret_post') return fail(reply, 400, 'invalid_client_metadata');
    const metadata = {
      redirect_uris: [...new Set(uris as string[])],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: method,
      application_type: b!.application_type === 'web' ? 'web' : 'native',
      ...(typeof b!.client_name === 'string' ? { client_name: b!.client_name.slice(0, 200) } : {}),
    };
    const id = `${PREFIX.client}${randomBytes(16).toString('base64url')}`;
    const secret = method === 'client_secret_post' ? newSecret(PREFIX.secret) : undefined;
    const now = Date.now();
    db.insertClient({ id, secret_hash: secret ? sha256(secret) : null, metadata: JSON.stringify(metadata), created_at: now });
    reply.code(201);
    return { client_id: id, client_id_issued_at: seconds(now), ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}), ...metadata };
  });
}
