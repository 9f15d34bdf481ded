import type { FastifyInstance } from 'fastify';
import type { Readiness } from './health.ts';

/**
 * Once a stopping instance has closed its listener (src/ops/shutdown.ts),
 * every answer carries `Connection: close`: it is its connection's last, and
 * the client sends its next request on a new connection (to another
 * instance) instead of on one about to be closed. RFC 9112 §9.6: "A server
 * that sends a 'close' connection option MUST initiate closure of the
 * connection after it sends the response containing 'close'." Not during the
 * drain before it: clients then keep their open connections rather than
 * queueing new ones that closing the listener would reset. Set as the answer
 * is sent, so requests already in flight get it too.
 */
export function closeConnectionsWhenStopping(app: FastifyInstance, readiness: Readiness): void {
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (readiness.isStopping && !app.server.listening) reply.header('connection', 'close');
    done(null, payload);
  });
}
