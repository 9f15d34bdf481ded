import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * The access log (ACCESS_LOG=true): one line per request, written when it
 * completes: method, redacted URL and client address (the `req`
 * serializer), status and time. Fastify's default writes two lines per
 * request (received, completed). Off, no line is written for a request that
 * completed; a response that failed on the socket is still logged. Errors
 * the app handles are logged where they happen (src/http/errors/error-handler.ts),
 * and events (a failed sign-in, a registration, a revocation) by the code
 * that has them, either way.
 */
export class OneLinePerRequest extends LogController {
  constructor(private readonly accessLog: boolean) {
    super();
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else if (this.accessLog) reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
