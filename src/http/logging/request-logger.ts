import type { FastifyServerOptions } from 'fastify';

/**
 * Fastify's `childLoggerFactory`: each request's pino child. Fastify hands
 * the factory an options object even when it holds nothing (a route without
 * its own level or serializers), and pino builds a child from an options
 * object the slow way, its formatters rebuilt for every request; without
 * one, pino takes its short path. A route's own level or serializers are
 * passed on as given.
 */
export const requestLogger: NonNullable<FastifyServerOptions['childLoggerFactory']> = (logger, bindings, options) =>
  options.level !== undefined || options.serializers !== undefined ? logger.child(bindings, options) : logger.child(bindings);
