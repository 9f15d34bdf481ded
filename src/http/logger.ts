import type { FastifyInstance } from 'fastify';
import pino, { type DestinationStream, type LoggerOptions } from 'pino';
import type { Config } from '../config/index.ts';
import { serializeRequest } from './log-redaction.ts';
import { inPathSet, type PathSet } from './path-set.ts';

export interface AppLogger {
  /** Fastify's `logger` option. */
  options: (LoggerOptions & { stream: DestinationStream }) | false;
  /** Writes what is still buffered; resolves when it is out. */
  flush(): Promise<void>;
}

/**
 * JSON lines on stdout, one per request, with the request serializer that
 * keeps credentials out. The destination writes asynchronously: lines that
 * arrive while a write is in flight go out together with the next write,
 * instead of one blocking write(2) per line (pino's default for stdout),
 * which cost a small request more than anything but its own socket write.
 * The app flushes on close; pino flushes when the process exits.
 */
export function appLogger(level: Config['logLevel']): AppLogger {
  if (level === 'silent') return { options: false, flush: async () => {} };
  const stream = pino.destination({ dest: 1, sync: false });
  return {
    options: { level, serializers: { req: serializeRequest }, stream },
    flush: () => new Promise((resolve) => stream.flush(() => resolve())),
  };
}

/**
 * Public documents every client fetches on start (the well-known metadata,
 * JWKS, /auth.md, /openapi.json, stylesheets) carry no caller's data and
 * would fill an access log at info with the same lines; at LOG_LEVEL=info
 * their successful requests are not logged (errors still are). Any other
 * level applies to them as to every route: debug and trace log them too.
 */
export function quietPublicDocuments(app: FastifyInstance, level: Config['logLevel'], paths: PathSet): void {
  if (level !== 'info') return;
  app.addHook('onRoute', (route) => {
    if (inPathSet(paths, route.url)) route.logLevel = 'warn';
  });
}
