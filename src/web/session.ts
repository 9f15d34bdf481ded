import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config/index.ts';
import type { Deps } from '../deps.ts';
import { newSecret, PREFIX, sha256 } from '../oauth/tokens/secrets.ts';
import type { Session, User } from '../store/types.ts';

/** `__Host-` pins the cookie to this origin over https (RFC 6265bis §4.1.3.2). */
export const sessionCookieName = (config: Pick<Config, 'secureCookies'>): string =>
  config.secureCookies ? '__Host-lyceum_session' : 'lyceum_session';

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

/** A fresh session (never reusing an old id, against fixation); the old one, if any, is ended. */
export async function startSession(request: FastifyRequest, reply: FastifyReply, user: User, deps: Deps): Promise<void> {
  await endSession(request, reply, deps);
  const token = newSecret(PREFIX.session);
  const now = deps.now();
  await deps.store.sessions.create({ hash: sha256(token), userId: user.id, authTime: now, expiresAt: now + deps.config.sessionTtl * 1000 });
  reply.setCookie(sessionCookieName(deps.config), token, { ...cookieOptions(deps.config), maxAge: deps.config.sessionTtl });
}

export async function endSession(request: FastifyRequest, reply: FastifyReply, deps: Deps): Promise<void> {
  const raw = request.cookies[sessionCookieName(deps.config)];
  if (!raw) return;
  if (raw.length <= 200) await deps.store.sessions.delete(sha256(raw));
  reply.clearCookie(sessionCookieName(deps.config), cookieOptions(deps.config));
}
