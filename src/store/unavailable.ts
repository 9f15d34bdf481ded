import { httpError, type HttpError } from '../http/errors/http-error.ts';

/** Seconds a client is asked to wait before it retries a request the database could not serve. */
export const STORE_RETRY_AFTER_SECONDS = 3;

/**
 * The store could not serve the request in time: the database is unreachable,
 * refused a connection slot, or a wait hit its bound (pool, lock, statement).
 * Nothing was written (the transaction rolled back), so the request can be
 * sent again: 503 temporarily_unavailable with Retry-After, never a 500.
 * `cause` (the driver's error) goes to the log only.
 */
export function storeUnavailable(cause: unknown, why: string): HttpError {
  const e = httpError('temporarily_unavailable', 'The service is briefly unavailable; try again in a few seconds.').withDetail(why);
  e.headers['retry-after'] = String(STORE_RETRY_AFTER_SECONDS);
  e.cause = cause;
  return e;
}
