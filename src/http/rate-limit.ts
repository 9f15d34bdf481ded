import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from '../config/index.ts';

const MINUTE_MS = 60_000;
const REDIS_WARNING_EVERY_MS = 60_000;

/**
 * Per-IP rate limits (@fastify/rate-limit), applied only to routes that ask
 * for one through rateLimitPerMinute(). With REDIS_URL the counters live in
 * Redis, so every instance behind the load balancer counts together;
 * otherwise each process counts on its own. When Redis cannot be reached the
 * request is let through (and a warning logged): the limit is a brake, not a
 * dependency of sign-in. `onExceeded` hears of each request refused for
 * going over a limit (the metrics count them).
 */
export async function registerRateLimit(app: FastifyInstance, config: Config, onExceeded?: (request: FastifyRequest) => void): Promise<void> {
  let redis: Redis | undefined;
  if (config.redisUrl) {
    // Loaded only when used: it costs start time and memory otherwise.
    const { Redis } = await import('ioredis');
    redis = new Redis(config.redisUrl, { connectTimeout: 1000, maxRetriesPerRequest: 1 });
    let warnedAt = 0;
    redis.on('error', (err: Error) => {
      if (Date.now() - warnedAt < REDIS_WARNING_EVERY_MS) return;
      warnedAt = Date.now();
      app.log.warn({ err: { message: err.message } }, 'Redis for rate limits is unreachable; limits are not enforced meanwhile');
    });
    const client = redis;
    app.addHook('onClose', async () => {
      await client.quit().catch(() => client.disconnect());
    });
  }
  await app.register(rateLimit, {
    global: false,
    skipOnError: true,
    ...(onExceeded ? { onExceeded } : {}),
    ...(redis ? { redis, nameSpace: `${config.redisKeyPrefix}rate-limit:` } : {}),
  });
}

/** A route's rate-limit config: `max` requests per client IP per minute, or none when max is 0. */
export function rateLimitPerMinute(max: number): false | { max: number; timeWindow: number } {
  return max > 0 ? { max, timeWindow: MINUTE_MS } : false;
}
