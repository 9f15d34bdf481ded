import { storeUnavailable } from '../unavailable.ts';

/**
 * PostgreSQL errors that say "not now" rather than "this is wrong", each with
 * the reason the log gets. SQLSTATE classes: 57014 query_canceled (our
 * statement_timeout), 55P03 lock_not_available (our lock_timeout), 53300
 * too_many_connections (also "remaining connection slots are reserved"),
 * 57P01-57P03 admin_shutdown, crash_shutdown, cannot_connect_now, and class 08
 * (connection exceptions).
 */
const SQLSTATES: Record<string, string> = {
  '57014': 'statement timeout',
  '55P03': 'lock timeout',
  '53300': 'no connection slot free',
  '57P01': 'server shut down',
  '57P02': 'server crashed',
  '57P03': 'server starting or stopping',
};

/** Socket errors: the server cannot be reached, or the connection broke. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/** The driver's own messages for a broken connection or a wait for the pool that timed out (they carry no code). */
const DRIVER_MESSAGES = [/^timeout exceeded when trying to connect$/, /^Connection terminated/, /^Client has encountered a connection error and is not queryable$/, /^Query read timeout$/];

/** Why the error means the database is unavailable, or undefined for any other error (a real failure, a constraint). */
export function unavailableReason(err: unknown): string | undefined {
  if (!(err instanceof Error)) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (SQLSTATES[code]) return SQLSTATES[code];
    if (code.startsWith('08')) return 'connection failure';
    if (SOCKET_CODES.has(code)) return 'database unreachable';
  }
  if (DRIVER_MESSAGES.some((m) => m.test(err.message))) return 'database unreachable or pool exhausted';
  return undefined;
}

/** True when the server refused a connection for want of a free slot: worth trying again shortly. */
export const isSlotRefused = (err: unknown): boolean => (err as { code?: unknown } | null)?.code === '53300';

/** The error the store raises instead: a 503 for an unavailable database, the error itself otherwise. */
export function translateFault(err: unknown): unknown {
  const reason = unavailableReason(err);
  return reason === undefined ? err : storeUnavailable(err, `${reason}: ${(err as Error).message}`);
}
