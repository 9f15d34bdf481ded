import type { FastifyInstance } from 'fastify';
import pino, { type DestinationStream, type LoggerOptions } from 'pino';
import type { Config } from '../config/index.ts';
import { LineBatcher } from './log-batch.ts';
import { serializeRequest } from './log-redaction.ts';
import { inPathSet, type PathSet } from './path-set.ts';

export interface AppLogger {
  /** Fastify's `logger` option. */
  options: (LoggerOptions & { stream: DestinationStream }) | false;
  /** Writes what is still waiting; resolves when it is out. */
  close(): Promise<void>;
}

/** Lines are written once this many characters are waiting... */
const WRITE_AT_CHARS = 4096;
/** ...or every this many milliseconds. */
const WRITE_EVERY_MS = 250;

/**
 * JSON lines on stdout (events, errors and, with ACCESS_LOG=true, one line
 * per request), with the request serializer that keeps credentials out.
 * Lines are written asynchronously and in batches
 * (src/http/log-batch.ts): a write goes out once WRITE_AT_CHARS characters
 * of lines wait, and every WRITE_EVERY_MS otherwise. One blocking write(2)
 * per line (pino's default for stdout) cost a small request more than
 * anything but its own socket write; one asynchronous write per line, at a
 * steady load below saturation, a hand-off to libuv's thread pool for every
 * request. The app writes what waits on close; an exit without close writes
 * it synchronously.
 */
export function appLogger(level: Config['logLevel']): AppLogger {
  if (level === 'silent') return { options: false, close: async () => {} };
  // minLength 1: each batch goes out at once, and flush() waits for the write in flight (with 0 it returns at once).
  const stream = new LineBatcher(pino.destination({ dest: 1, sync: false, minLength: 1 }), WRITE_AT_CHARS, WRITE_EVERY_MS);
  return {
    options: { level, serializers: { req: serializeRequest }, stream },
    close: () => new Promise((resolve) => stream.close(() => resolve())),
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
