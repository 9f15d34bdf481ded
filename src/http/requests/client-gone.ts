import type { FastifyInstance } from 'fastify';

/**
 * A request whose client hung up before its handler starts is not run: its
 * answer could never be read, and work done for nobody (often after a wait
 * for the database) only lengthens the queue of those still waiting. The
 * check runs last before the handler, after the bearer guard's token lookup.
 */
export function skipAbandonedRequests(app: FastifyInstance): void {
  app.addHook('preHandler', async (request, reply) => {
    if (!request.raw.socket?.destroyed) return;
    request.log.info({ event: 'client_gone' }, 'request not started: the client disconnected');
    reply.hijack();
  });
}
