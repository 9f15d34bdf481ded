import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';

type LogArgs = [unknown, ...unknown[]];
const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
type Level = (typeof LEVELS)[number];

/**
 * A request's logger (`request.log`), whose pino child is made when the
 * request first logs. Fastify makes a child per request, with the request
 * id bound, and always hands pino an options object, which takes pino's
 * slower path (its formatters rebuilt for every request); yet with the
 * access log off (the default) most requests never write a line. The lines
 * a request does write are those of the child it would have had: same
 * bindings, same options.
 */
class RequestLogger {
  readonly #parent: FastifyBaseLogger;
  readonly #bindings: Bindings;
  readonly #options: ChildLoggerOptions;
  #child: FastifyBaseLogger | undefined;

  constructor(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  #logger(): FastifyBaseLogger {
    return (this.#child ??= this.#parent.child(this.#bindings, this.#options));
  }

  get level(): string {
    return this.#logger().level;
  }

  set level(level: string) {
    this.#logger().level = level;
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#logger().child(bindings, options);
  }

  /** A line at `level`, written by the request's child. */
  write(level: Level, args: LogArgs): void {
    (this.#logger()[level] as (...a: LogArgs) => void)(...args);
  }

  silent(): void {}
}

// The log methods (request.log.info(...) and the others), each handing its line to write().
interface RequestLogger extends Record<Level, (...args: LogArgs) => void> {}
for (const level of LEVELS) {
  RequestLogger.prototype[level] = function (this: RequestLogger, ...args: LogArgs) {
    this.write(level, args);
  };
}

/** Fastify's `childLoggerFactory`: each request's logger, its pino child made on first use. */
export const lazyRequestLogger: NonNullable<FastifyServerOptions['childLoggerFactory']> = (logger, bindings, options) =>
  new RequestLogger(logger, bindings, options) as unknown as FastifyBaseLogger;
