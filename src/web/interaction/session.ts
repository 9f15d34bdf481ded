import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config/index.ts';
import type { Deps } from '../../deps.ts';
import { newSecret, PREFIX, sha256 } from '../../oauth/issued-tokens/secrets.ts';
import type { Session, User } from '../../store/types.ts';

/**
 * The one place cookie names are made. Browsers scope cookies by host, not by
 * port (RFC 6265 §8.5: "Cookies do not provide isolation by port"), so every
 * app on 127.0.0.1 shares one cookie jar: the name carries the issuer's port,
 * so two Lyceums (or any other app's `session`) never overwrite each other.
 * `__Host-` pins the cookie to this host over https (RFC 6265bis §4.1.3.2).
 */
export function cookieName(config: Pick<Config, 'secureCookies' | 'issuer'>, purpose: 'session' | 'csrf'): string {
  const url = new URL(config.issuer);
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return `${config.secureCookies ? '__Host-' : ''}lyceum_${port}_${purpose}`;
}

export const sessionCookieName = (config: Pick<Config, 'secureCookies' | 'issuer'>): string => cookieName(config, 'session');
export const csrfCookieName = (config: Pick<Config, 'secureCookies' | 'issuer'>): string => cookieName(config, 'csrf');

export function cookieOptions(config: Pick<Config, 'secureCookies'>) {
  return { path: '/', httpOnly: true, sameSite: 'lax' as const, secure: config.secureCookies };
}

export interface SignedIn {
  session: Session;
  user: User;
}

/** The signed-in user, if the session cookie names a live session of an existing user. */
export async function readSession(request: FastifyRequest, deps: Deps): Promise<SignedIn | undefined> {
  const raw = request.cookies[sessionCookieName(deps.config)];
  if (!raw || raw.length > 200) return undefined;
  const session = await deps.store.sessions.findLive(sha256(raw), deps.now());
  if (!session) return undefined;
  const user = await deps.store.users.findById(session.userId);
  return user && { session, user };
}

/**
 * A fresh session (never reusing an old id, against fixation); the old one, if
 * any, is ended, and with it the CSRF secret (see endSession).
 */
export async function startSession(request: FastifyRequest, reply: FastifyReply, user: User, deps: Deps): Promise<void> {
  await endSession(request, reply, deps);
  const token = newSecret(PREFIX.session);
  const now = deps.now();
  await deps.store.sessions.create({ hash: sha256(token), userId: user.id, authTime: now, expiresAt: now + deps.config.sessionTtl * 1000 });
  reply.setCookie(sessionCookieName(deps.config), token, { ...cookieOptions(deps.config), maxAge: deps.config.sessionTtl });
}

/**
 * Ends the session and drops the CSRF secret with it: the next page makes a
 * new one, so no token issued before sign-in or sign-out is worth anything after.
 */
export async function endSession(request: FastifyRequest, reply: FastifyReply, deps: Deps): Promise<void> {
  if (request.cookies[csrfCookieName(deps.config)]) reply.clearCookie(csrfCookieName(deps.config), cookieOptions(deps.config));
  const raw = request.cookies[sessionCookieName(deps.config)];
  if (!raw) return;
  await deps.store.sessions.delete(sha256(raw));
  reply.clearCookie(sessionCookieName(deps.config), cookieOptions(deps.config));
}
