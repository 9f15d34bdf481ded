import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.ts';
import { WEB_PATHS } from './paths.ts';
import { endSession } from './session.ts';

/** POST /oauth/sign-out: ends the browser's session, beside the sign-in that starts one. */
export function registerSignOutRoute(app: FastifyInstance, deps: Deps): void {
  const html = { config: { html: true } };
  app.post(WEB_PATHS.signOut, { ...html, preValidation: app.formProtection }, async (request, reply) => {
    await endSession(request, reply, deps);
    return reply.code(303).redirect('/', 303);
  });
}
