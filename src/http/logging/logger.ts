import type { FastifyInstance } from 'fastify';
import pino, { type DestinationStream, type LoggerOptions } from 'pino';
import type { Config } from '../../config/index.ts';
import { serializeRequest } from './log-redaction.ts';
import { inPathSet, type PathSet } from '../requests/path-set.ts';

export interface AppLogger {
  /** Fastify's `logger` option. */
  options: (LoggerOptions & { stream: DestinationStream }) | false;
  /** Writes what is still waiting; resolves when it is out. */
  close(): Promise<void>;
}

/** Lines are written once this many bytes are waiting (pino's destination, its minLength)... */
const WRITE_AT_BYTES = 4096;
/** ...or every this many milliseconds, so a quiet server's lines still show up soon. */
const WRITE_EVERY_MS = 250;

/**
 * JSON lines on stdout (events, errors and, with ACCESS_LOG=true, one line
 * per request), with the request serializer that keeps credentials out.
 * Lines are written asynchronously, in batches of WRITE_AT_BYTES and every
 * WRITE_EVERY_MS otherwise: one blocking write(2) per line (pino's default
 * for stdout) cost a small request more than anything but its own socket
 * write. The app writes what waits on close; pino writes it synchronously on
 * an exit without close.
 */
export function appLogger(level: Config['logLevel']): AppLogger {
  if (level === 'silent') return { options: false, close: async () => {} };
  const stream = pino.destination({ dest: 1, sync: false, minLength: WRITE_AT_BYTES });
  // The timer writes only when a line came since its last round: an idle server writes nothing.
  let waiting = false;
  const timer = setInterval(() => waiting && flush(), WRITE_EVERY_MS).unref();
  // A flush before the destination is open (its first moments) throws; the next one writes it all.
  const flush = (done: (err?: Error) => void = () => {}) => {
    waiting = false;
    try {
      stream.flush(done);
    } catch (err) {
      waiting = true;
      done(err as Error);
    }
  };
  const noteLine = (line: string) => {
    waiting = true;
    return line;
  };
  return {
    options: { level, serializers: { req: serializeRequest }, hooks: { streamWrite: noteLine }, stream },
    close: () =>
      new Promise((resolve) => {
        clearInterval(timer);
        flush(() => resolve());
      }),
  };
}

/**
 * Public documents every client fetches on start (the well-known metadata,
 * JWKS, /auth.md, /openapi.json, stylesheets) carry no caller's data and
 * would fill the access log at info with the same lines; at LOG_LEVEL=info
 * their successful requests are not logged (errors still are). Any other
 * level applies to them as to every route: debug and trace log them too.
 * Without the access log there is nothing to quiet, and the quieter level
 * would still cost every request of these routes a logger of its own level.
 */
export function quietPublicDocuments(app: FastifyInstance, config: Pick<Config, 'logLevel' | 'accessLog'>, paths: PathSet): void {
  if (!config.accessLog || config.logLevel !== 'info') return;
  app.addHook('onRoute', (route) => {
    if (inPathSet(paths, route.url)) route.logLevel = 'warn';
  });
}
