import type { FastifyReply } from 'fastify';

/**
 * Sends the user agent back to the client. RFC 9207 §2: "the authorization
 * server MUST add the iss parameter" to every authorization response,
 * error responses included.
 */
export function redirectToClient(
  reply: FastifyReply,
  redirectUri: string,
  issuer: string,
  params: Record<string, string | undefined>,
  status: 302 | 303 = 302,
): FastifyReply {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.append(k, v);
  url.searchParams.append('iss', issuer);
  return reply.code(status).header('cache-control', 'no-store').redirect(url.href, status);
}
