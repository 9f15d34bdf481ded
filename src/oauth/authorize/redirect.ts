import type { FastifyReply } from 'fastify';
import { logError } from '../../http/errors/error-handler.ts';
import type { OAuthError } from '../errors.ts';
import { AUTHORIZATION_SERVER } from '../../util/authorization-server.ts';

const MAX_DESCRIPTION = AUTHORIZATION_SERVER.limits.redirectErrorDescription;

/** Where an authorization response goes: the trusted redirect URI, with the client's state. */
export interface ClientReturn {
  redirectUri: string;
  state: string | undefined;
}

/**
 * Sends the user agent back to the client. RFC 9207 §2: "the authorization
 * server MUST add the iss parameter" to every authorization response,
 * error responses included.
 */
function redirectToClient(reply: FastifyReply, to: ClientReturn, issuer: string, params: Record<string, string>, status: 302 | 303): FastifyReply {
  const url = new URL(to.redirectUri);
  for (const [k, v] of Object.entries(params)) url.searchParams.append(k, v);
  // RFC 6749 §4.1.2: state is "REQUIRED if the "state" parameter was present in the client authorization request".
  if (to.state !== undefined) url.searchParams.append('state', to.state);
  url.searchParams.append('iss', issuer);
  return reply.code(status).header('cache-control', 'no-store').redirect(url.href, status);
}

/** RFC 6749 §4.1.2: the approved request's code, with state and iss. 303 after a form post. */
export function redirectWithCode(reply: FastifyReply, to: ClientReturn, issuer: string, code: string, status: 302 | 303 = 302): FastifyReply {
  return redirectToClient(reply, to, issuer, { code }, status);
}

/**
 * The error_description a redirect can carry. RFC 6749 §4.1.2.1: its values
 * "MUST NOT include characters outside the set %x20-21 / %x23-5B / %x5D-7E",
 * so any other character becomes "?". A description may echo the request (an
 * unknown scope), and a 4000-character scope percent-encoded three times over
 * would make a Location header no HTTP client reads: it is cut to
 * MAX_DESCRIPTION characters.
 */
function descriptionForRedirect(description: string): string {
  const plain = description.replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, '?');
  return plain.length <= MAX_DESCRIPTION ? plain : `${plain.slice(0, MAX_DESCRIPTION - 3)}...`;
}

/**
 * The one builder of an authorization error response. RFC 6749 §4.1.2.1: the
 * error goes to the redirect URI as error, error_description and state (RFC 9207
 * §2 adds iss), and nothing else; the error's detail goes to the log only.
 */
export function redirectWithError(reply: FastifyReply, to: ClientReturn, issuer: string, error: OAuthError, status: 302 | 303 = 302): FastifyReply {
  logError(reply.log, error);
  return redirectToClient(reply, to, issuer, { error: error.code, error_description: descriptionForRedirect(error.description) }, status);
}
