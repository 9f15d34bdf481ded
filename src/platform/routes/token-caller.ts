import type { FastifyRequest } from 'fastify';
import { PlatformError } from '../errors.ts';

/**
 * The signed-in caller of a route protected without a public view. The guard
 * already refused anonymous requests there; this only narrows the type.
 */
export function tokenCaller(request: FastifyRequest): { userId: string } {
  const caller = request.caller;
  if (caller.kind !== 'token') throw new PlatformError('invalid_request', 'This operation needs a Bearer access token', 401);
  return { userId: caller.userId };
}
