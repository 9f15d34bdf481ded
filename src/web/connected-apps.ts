import { activityEntry } from '../activity/record.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { paramOf } from '../http/requests/params.ts';
import type { Deps } from '../deps.ts';
import { OAuthError } from '../oauth/errors.ts';
import { CONSENT_DURATIONS, consentEnd } from '../access/consent.ts';
import { AUTHORIZATION_SERVER } from '../util/authorization-server.ts';
import { connectedAppsPage, type ConnectedApp } from './pages/connected-apps.ts';
import { WEB_PATHS } from './interaction/paths.ts';
import { readSession } from './interaction/session.ts';
import { redirectTarget } from './redirect-target.ts';

const HTML = 'text/html; charset=utf-8';
export const APPS_PATH = '/account/apps';
/** How many of an app's latest entries its card shows; the school's admins read the whole log. */
const RECENT_ACTIVITY = 10;

async function appsOf(userId: string, deps: Deps): Promise<ConnectedApp[]> {
  const grants = await deps.store.grants.listForUser(userId);
  const apps: ConnectedApp[] = [];
  for (const g of grants) {
    const client = await deps.store.clients.find(g.clientId);
    if (!client) continue;
    apps.push({
      clientId: client.id,
      name: client.metadata.client_name ?? 'An unnamed app',
      redirectHosts: [...new Set(client.metadata.redirect_uris.map(redirectTarget))],
      registeredBySchool: client.registration === 'operator',
      scopes: g.scope.split(' '),
      connectedAt: g.createdAt,
      updatedAt: g.updatedAt,
      expiresAt: g.expiresAt,
      recent: (await deps.store.activity.list({ userId, clientId: client.id, limit: RECENT_ACTIVITY })).entries,
    });
  }
  return apps;
}

/**
 * /account/apps: what the signed-in user has let apps do, with a way to take
 * it back. Disconnecting deletes the consent and revokes every token the app
 * holds for this user, at once, on every instance.
 */
export function registerConnectedApps(app: FastifyInstance, deps: Deps): void {
  const html = { config: { html: true } };

  const show = async (request: FastifyRequest, reply: FastifyReply, notice?: string) => {
    const signedIn = await readSession(request, deps);
    if (!signedIn) return reply.code(303).redirect(`${WEB_PATHS.signIn}?return_to=${encodeURIComponent(APPS_PATH)}`, 303);
    const page = connectedAppsPage({ csrfToken: reply.formToken(), email: signedIn.user.email, apps: await appsOf(signedIn.user.id, deps), now: deps.now(), ...(notice ? { notice } : {}) });
    return reply.type(HTML).header('cache-control', 'no-store').send(page);
  };

  app.get(APPS_PATH, html, (request, reply) => show(request, reply));

  app.post(`${APPS_PATH}/disconnect`, { ...html, preValidation: app.formProtection }, async (request, reply) => {
    const signedIn = await readSession(request, deps);
    if (!signedIn) return reply.code(303).redirect(`${WEB_PATHS.signIn}?return_to=${encodeURIComponent(APPS_PATH)}`, 303);
    const clientId = paramOf(request.body, 'client_id');
    if (typeof clientId !== 'string' || clientId.length > AUTHORIZATION_SERVER.limits.clientId) throw new OAuthError('invalid_request', 'Choose an app to disconnect.');
    const entry = await activityEntry(deps, { event: 'app.disconnected', userId: signedIn.user.id, clientId, via: 'web', operation: 'disconnect' });
    const removed = await deps.store.grants.delete(signedIn.user.id, clientId, entry);
    const revoked = await deps.store.tokens.revokeForGrant(signedIn.user.id, clientId, deps.now());
    request.log.info({ client_id: clientId, revoked }, 'app disconnected by its user');
    return show(request, reply, removed ? 'The app was disconnected; its access was revoked.' : 'That app was not connected.');
  });

  // A new end for the consent, counted from now: longer, shorter, or until disconnected. Refresh follows it at once.
  app.post(`${APPS_PATH}/extend`, { ...html, preValidation: app.formProtection }, async (request, reply) => {
    const signedIn = await readSession(request, deps);
    if (!signedIn) return reply.code(303).redirect(`${WEB_PATHS.signIn}?return_to=${encodeURIComponent(APPS_PATH)}`, 303);
    const clientId = paramOf(request.body, 'client_id');
    if (typeof clientId !== 'string' || clientId.length > AUTHORIZATION_SERVER.limits.clientId) throw new OAuthError('invalid_request', 'Choose an app to extend.');
    const duration = paramOf(request.body, 'duration');
    if (!CONSENT_DURATIONS.some((d) => d.id === duration)) throw new OAuthError('invalid_request', 'Choose how long the app may act for you.');
    const now = deps.now();
    const expiresAt = consentEnd({ duration }, now);
    const entry = await activityEntry(deps, { event: 'consent.extended', userId: signedIn.user.id, clientId, via: 'web', operation: 'extend' });
    const changed = await deps.store.grants.setEnd(signedIn.user.id, clientId, expiresAt, now, entry);
    request.log.info({ client_id: clientId, expires_at: expiresAt }, 'consent extended by its user');
    return show(request, reply, changed ? (expiresAt === null ? 'The app may act for you until you disconnect it.' : 'The app’s access was extended.') : 'That app is not connected.');
  });
}
