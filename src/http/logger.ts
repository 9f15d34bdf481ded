import pino, { type DestinationStream, type LoggerOptions } from 'pino';
import type { Config } from '../config/index.ts';
import { serializeRequest } from './log-redaction.ts';

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
