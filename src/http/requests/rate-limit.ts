import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { Config } from '../../config/index.ts';

const MINUTE_MS = 60_000;

/**
 * Every per-minute rate limit, declared once: its policy name (sent in the
 * RateLimit-Policy and RateLimit fields), the setting that sets it and what
 * it counts by. The routes take their limit from here (rateLimitFor),
 * /auth.md lists them from here (discovery/auth-md/limits.ts), and the
 * fields name them.
 */
export const RATE_LIMIT_POLICIES = {
  register: { setting: 'RATE_LIMIT_REGISTER_PER_MINUTE', per: 'per client address', read: (c: RateLimitSettings) => c.registerPerMinute },
  sign_in: { setting: 'RATE_LIMIT_SIGN_IN_PER_MINUTE', per: 'per client address', read: (c: RateLimitSettings) => c.signInPerMinute },
  device: { setting: 'RATE_LIMIT_DEVICE_PER_MINUTE', per: 'per client address', read: (c: RateLimitSettings) => c.devicePerMinute },
  mcp: { setting: 'RATE_LIMIT_MCP_PER_MINUTE', per: 'per access token, or per address without one', read: (c: RateLimitSettings) => c.mcpPerMinute },
  upload: { setting: 'RATE_LIMIT_UPLOAD_PER_MINUTE', per: 'per access token', read: (c: RateLimitSettings) => c.uploadPerMinute },
} as const satisfies Record<string, { setting: string; per: string; read: (c: RateLimitSettings) => number }>;

export type RateLimitPolicy = keyof typeof RATE_LIMIT_POLICIES;
type RateLimitSettings = Config['rateLimits'];

/** The window every policy counts in, in seconds (the `w` of RateLimit-Policy). */
export const RATE_LIMIT_WINDOW_SECONDS = MINUTE_MS / 1000;

/** The counters @fastify/rate-limit writes on a rate-limited answer; rateLimitFields turns them into the draft's two fields. */
const PLUGIN_HEADERS = { limit: 'x-ratelimit-limit', remaining: 'x-ratelimit-remaining', reset: 'x-ratelimit-reset' } as const;
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
  // Every answer of a rate-limited route, 429s included (the error handler's answers pass here too).
  app.addHook('onSend', async (request, reply, payload) => {
    rateLimitFields(request, reply);
    return payload;
  });
}

/**
 * Turns the plugin's counters into the fields of the IETF draft "RateLimit
 * header fields for HTTP": `RateLimit-Policy: "upload";q=30;w=60` (the
 * quota and its window in seconds) and `RateLimit: "upload";r=29;t=42`
 * (what remains of the quota and the seconds until the window ends), each a
 * structured-field List with the policy's name as a String. On a 429 the
 * plugin's Retry-After is the same t. The plugin's own x-ratelimit-*
 * headers are removed: one format, the draft's. Called on send.
 */
export function rateLimitFields(request: FastifyRequest, reply: FastifyReply): void {
  const limit = reply.getHeader(PLUGIN_HEADERS.limit);
  if (limit === undefined) return;
  const remaining = reply.getHeader(PLUGIN_HEADERS.remaining);
  const reset = reply.getHeader(PLUGIN_HEADERS.reset);
  for (const name of Object.values(PLUGIN_HEADERS)) reply.removeHeader(name);
  const policy = (request.routeOptions.config as { rateLimit?: { policy?: RateLimitPolicy } }).rateLimit?.policy;
  if (!policy) return;
  reply.header('ratelimit-policy', `"${policy}";q=${Number(limit)};w=${RATE_LIMIT_WINDOW_SECONDS}`);
  reply.header('ratelimit', `"${policy}";r=${Number(remaining)};t=${Number(reset)}`);
}

/**
 * A route's rate-limit config for one of the declared policies: its
 * per-minute quota from the settings, or none when the setting is 0.
 * `options` adds the route's own key or hook.
 */
export function rateLimitFor(
  config: Pick<Config, 'rateLimits'>,
  policy: RateLimitPolicy,
  options: { keyGenerator?: (request: FastifyRequest) => string; hook?: 'preHandler' } = {},
): false | { max: number; timeWindow: number; policy: RateLimitPolicy; keyGenerator?: (request: FastifyRequest) => string; hook?: 'preHandler' } {
  const max = RATE_LIMIT_POLICIES[policy].read(config.rateLimits);
  return max > 0 ? { max, timeWindow: MINUTE_MS, policy, ...options } : false;
}

/**
 * The response headers of an operation with a rate-limit policy, as
 * /openapi.json documents them (discovery/openapi.ts): both fields on every
 * answer, Retry-After on the 429.
 */
export function rateLimitHeadersDoc(policy: RateLimitPolicy, status: string): Record<string, z.ZodType> {
  return {
    'RateLimit-Policy': z
      .string()
      .describe(`The quota and its window in seconds, e.g. "${policy}";q=30;w=${RATE_LIMIT_WINDOW_SECONDS} (IETF draft "RateLimit header fields for HTTP"; ${RATE_LIMIT_POLICIES[policy].setting})`),
    RateLimit: z.string().describe(`What is left of the quota and the seconds until its window ends, e.g. "${policy}";r=29;t=42`),
    ...(status === '429' ? { 'Retry-After': z.int().describe('Seconds to wait: the t of RateLimit') } : {}),
  };
}
