import type { FastifyRequest } from 'fastify';
import type { Config } from '../config/index.ts';
import { httpError } from '../http/errors/http-error.ts';

const REFUSED = 'This form was not sent from this site’s own page, so nothing was done. Open the page on this site and try again.';

/**
 * Refuses a state-changing browser POST that did not come from the issuer's
 * own origin, before its CSRF token is even looked at. Another port of the
 * same host is another origin (RFC 6454 §4: scheme, host and port), but
 * shares the cookie jar, so only the origin says where a form came from.
 *
 * - Sec-Fetch-Site, when sent, must be `same-origin` (Fetch Metadata: a page on
 *   another port of 127.0.0.1 is `same-site`, never `same-origin`).
 * - Without it, Origin must be the issuer's origin, port included. `null`
 *   (an opaque origin, a sandboxed frame, or a no-referrer page in an old
 *   browser) is refused: it proves nothing.
 * - With neither header the request is not a browser's: every browser sends
 *   Origin or Sec-Fetch-Site on a cross-origin POST (Fetch, "append a
 *   request `Origin` header": a POST always carries it), so a hostile page
 *   cannot make one.
 *   A program posting the form itself (tests, scripts) still needs the
 *   cookie and the session-bound token.
 */
export function sameOriginOnly(config: Pick<Config, 'issuer'>) {
  const issuerOrigin = new URL(config.issuer).origin;
  return async (request: FastifyRequest): Promise<void> => {
    const site = request.headers['sec-fetch-site'];
    if (site !== undefined) {
      if (site !== 'same-origin') throw httpError('invalid_csrf', REFUSED);
      return;
    }
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== issuerOrigin) throw httpError('invalid_csrf', REFUSED);
  };
}
