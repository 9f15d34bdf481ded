import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.ts';
import { registerAuthorizeRoutes } from './authorize.ts';
import { registerDeviceRoutes } from './device.ts';
import { registerSignInRoutes } from './sign-in.ts';
import { registerSignOutRoute } from './sign-out.ts';

/**
 * The browser interaction: sign-in, consent and its decision, the device page, sign-out, and the
 * session they share. It calls the authorization core (oauth/authorize/); the
 * core never calls it.
 */
export function registerInteraction(app: FastifyInstance, deps: Deps): void {
  registerAuthorizeRoutes(app, deps);
  registerDeviceRoutes(app, deps);
  registerSignInRoutes(app, deps);
  registerSignOutRoute(app, deps);
}
