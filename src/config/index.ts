import { SETTINGS, type Setting, type SettingValues } from './defaults.ts';
import { issuer as parseIssuer, RefusedValue, type Database } from './parse.ts';
import type { LoopbackHost } from '../util/authorization-server.ts';

export interface Config {
  port: number;
  host: string;
  issuer: string;
  database: Database;
  /** The bounds on every wait for PostgreSQL, and its pool size (docs/deployment.md "Database faults"). */
  databaseLimits: DatabaseLimits;
  codeTtl: number;
  accessTokenTtl: number;
  refreshTokenTtl: number;
  refreshGrace: number;
  sessionTtl: number;
  trustProxy: boolean | number | string[];
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** One log line per request (docs/deployment.md "Logs"). */
  accessLog: boolean;
  loopbackHosts: LoopbackHost[];
  registrationBodyLimit: number;
  keysSecret: string | undefined;
  idTokenTtl: number;
  /** Requests per client IP per minute; 0 means no limit. */
  /** Browser origins besides the issuer's own that may call /mcp (DNS-rebinding protection). */
  mcpAllowedOrigins: string[];
  /**
   * Per-account delays after failed password checks (src/users/sign-in-throttle.ts):
   * free failures, then a delay from firstDelay doubling up to maxDelay (seconds);
   * the count is forgotten `forgetAfter` seconds after the last delay ends.
   */
  passwordFailures: { free: number; firstDelay: number; maxDelay: number; forgetAfter: number };
  rateLimits: { registerPerMinute: number; signInPerMinute: number; devicePerMinute: number; mcpPerMinute: number; uploadPerMinute: number };
  /** Fetching client metadata documents (docs/configuration.md CIMD_*); allowHosts skip the address check. */
  clientDocuments: { allowHosts: ReadonlySet<string>; timeoutMs: number; maxBytes: number; fetchesPerHostPerMinute: number };
  /** Registered clients at most; registrations beyond get 429 (docs/configuration.md MAX_REGISTERED_CLIENTS). */
  maxRegisteredClients: number;
  /** Seconds after registration a client that never obtained a token is purged. */
  unusedClientTtl: number;
  /** Total bytes of stored files the school may keep (docs/configuration.md STORAGE_QUOTA_BYTES). */
  storageQuotaBytes: number;
  /** Shared rate-limit counters; undefined keeps them in process. */
  redisUrl: string | undefined;
  redisKeyPrefix: string;
  /** Seconds an Idempotency-Key's answer is kept for replay (src/platform/idempotency.ts). */
  idempotencyKeyRetention: number;
  /** Seconds between background purges of expired codes, tokens and sessions. */
  purgeInterval: number;
  /** Days the activity log keeps an entry (ACTIVITY_RETENTION_DAYS). */
  activityRetentionDays: number;
  /** Email address of the owner the first start creates. */
  ownerEmail: string;
  /** On SIGTERM/SIGINT: ms of serving on while /readyz answers 503, then ms for requests in flight to finish. */
  shutdown: { drainMs: number; graceMs: number };
  /** How long GET /readyz waits for the store's trivial query before it answers 503, in ms. */
  readyTimeoutMs: number;
  /** The Prometheus listener (GET /metrics), off the public port; port 0: none. */
  metrics: { port: number; host: string };
  /** Webhook delivery (docs/configuration.md WEBHOOK_*): retry waits in ms, the receiver's timeout, failures before disabling, the poll interval, days the delivery log is kept, hosts exempt from the public-address check. */
  webhooks: {
    retryScheduleMs: number[];
    timeoutMs: number;
    disableAfter: number;
    pollIntervalMs: number;
    logDays: number;
    maxSubscriptions: number;
    allowHttp: 'never' | 'loopback';
    allowHosts: string[];
  };
  /** true when the issuer is https: cookies get the Secure attribute. */
  secureCookies: boolean;
}

/** PostgreSQL's pool size and the bounds on its waits, and SQLite's wait for another process's write lock, in ms. */
export interface DatabaseLimits {
  poolSize: number;
  acquireTimeoutMs: number;
  statementTimeoutMs: number;
  lockTimeoutMs: number;
  sqliteBusyTimeoutMs: number;
}

/** The DB_* settings' values in a Config. */
const limitsOf = (e: Pick<SettingValues, 'DB_POOL_SIZE' | 'DB_ACQUIRE_TIMEOUT_MS' | 'DB_STATEMENT_TIMEOUT_MS' | 'DB_LOCK_TIMEOUT_MS' | 'SQLITE_BUSY_TIMEOUT_MS'>): DatabaseLimits => ({
  poolSize: e.DB_POOL_SIZE,
  acquireTimeoutMs: e.DB_ACQUIRE_TIMEOUT_MS,
  statementTimeoutMs: e.DB_STATEMENT_TIMEOUT_MS,
  lockTimeoutMs: e.DB_LOCK_TIMEOUT_MS,
  sqliteBusyTimeoutMs: e.SQLITE_BUSY_TIMEOUT_MS,
});

/** The database limits of the given environment (by default the settings' defaults), for a store opened without a Config. */
export const databaseLimits = (env: Record<string, string | undefined> = {}): DatabaseLimits => limitsOf(readSettings(env));

/** A configuration value that cannot be used. The message names the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * Reads and validates the environment against the settings table (defaults.ts).
 * Throws ConfigError with a one-line message naming the first bad variable
 * and why it is refused.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const e = readSettings(env);
  const database = e.DATABASE_URL;
  if (database.kind === 'postgres' && !e.KEYS_SECRET) {
    throw new ConfigError('KEYS_SECRET: required with a postgres DATABASE_URL (every instance must share it to use the signing keys)');
  }
  // The default issuer follows PORT, and is an origin like a set one (PORT=80 gives http://127.0.0.1).
  const issuer = e.PUBLIC_URL ?? setting('PUBLIC_URL', `http://127.0.0.1:${e.PORT}`, parseIssuer);
  // The metrics are for the operator's scraper, never for the public listener.
  if (e.METRICS_PORT !== 0 && e.METRICS_PORT === e.PORT) {
    throw new ConfigError('METRICS_PORT: must not be the public PORT (metrics are served on a listener of their own)');
  }
  return {
    port: e.PORT,
    host: e.HOST,
    issuer,
    database,
    databaseLimits: limitsOf(e),
    codeTtl: e.CODE_TTL_SECONDS,
    accessTokenTtl: e.ACCESS_TOKEN_TTL_SECONDS,
    refreshTokenTtl: e.REFRESH_TOKEN_TTL_SECONDS,
    refreshGrace: e.REFRESH_GRACE_SECONDS,
    sessionTtl: e.SESSION_TTL_SECONDS,
    trustProxy: e.TRUST_PROXY,
    logLevel: e.LOG_LEVEL,
    accessLog: e.ACCESS_LOG,
    loopbackHosts: e.LOOPBACK_HOSTS,
    registrationBodyLimit: e.REGISTRATION_BODY_LIMIT,
    keysSecret: e.KEYS_SECRET,
    idTokenTtl: e.ID_TOKEN_TTL_SECONDS,
    mcpAllowedOrigins: e.MCP_ALLOWED_ORIGINS ?? [],
    passwordFailures: {
      free: e.SIGN_IN_FREE_FAILURES,
      firstDelay: e.SIGN_IN_FIRST_DELAY_SECONDS,
      maxDelay: e.SIGN_IN_MAX_DELAY_SECONDS,
      forgetAfter: e.SIGN_IN_FORGET_FAILURES_SECONDS,
    },
    rateLimits: {
      registerPerMinute: e.RATE_LIMIT_REGISTER_PER_MINUTE,
      signInPerMinute: e.RATE_LIMIT_SIGN_IN_PER_MINUTE,
      devicePerMinute: e.RATE_LIMIT_DEVICE_PER_MINUTE,
      mcpPerMinute: e.RATE_LIMIT_MCP_PER_MINUTE,
      uploadPerMinute: e.RATE_LIMIT_UPLOAD_PER_MINUTE,
    },
    storageQuotaBytes: e.STORAGE_QUOTA_BYTES,
    clientDocuments: {
      allowHosts: new Set(e.CIMD_ALLOW_HOSTS ?? []),
      timeoutMs: e.CIMD_FETCH_TIMEOUT_MS,
      maxBytes: e.CIMD_MAX_BYTES,
      fetchesPerHostPerMinute: e.CIMD_FETCHES_PER_HOST_PER_MINUTE,
    },
    maxRegisteredClients: e.MAX_REGISTERED_CLIENTS,
    unusedClientTtl: e.UNUSED_CLIENT_TTL_SECONDS,
    redisUrl: e.REDIS_URL,
    redisKeyPrefix: e.REDIS_KEY_PREFIX,
    idempotencyKeyRetention: e.IDEMPOTENCY_KEY_RETENTION_SECONDS,
    purgeInterval: e.PURGE_INTERVAL_SECONDS,
    activityRetentionDays: e.ACTIVITY_RETENTION_DAYS,
    ownerEmail: e.OWNER_EMAIL,
    readyTimeoutMs: e.READY_TIMEOUT_MS,
    shutdown: { drainMs: e.SHUTDOWN_DRAIN_MS, graceMs: e.SHUTDOWN_GRACE_MS },
    metrics: { port: e.METRICS_PORT, host: e.METRICS_HOST },
    webhooks: {
      retryScheduleMs: e.WEBHOOK_RETRY_SCHEDULE,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      disableAfter: e.WEBHOOK_DISABLE_AFTER_FAILURES,
      pollIntervalMs: e.WEBHOOK_POLL_INTERVAL_MS,
      logDays: e.WEBHOOK_LOG_DAYS,
      maxSubscriptions: e.WEBHOOK_MAX_SUBSCRIPTIONS,
      allowHttp: (e.WEBHOOK_HTTP_LOOPBACK ?? new URL(issuer).protocol === 'http:') ? 'loopback' : 'never',
      // The address check compares host names without an IPv6 literal's brackets.
      allowHosts: (e.WEBHOOK_ALLOW_HOSTS ?? []).map((h) => h.replace(/^\[(.*)\]$/, '$1')),
    },
    secureCookies: new URL(issuer).protocol === 'https:',
  };
}

/** parse(raw), with a refusal turned into a ConfigError that names the variable. */
function setting<T>(name: string, raw: string, parse: (raw: string) => T): T {
  try {
    return parse(raw);
  } catch (err) {
    if (err instanceof RefusedValue) throw new ConfigError(`${name}: ${err.message}`);
    throw err;
  }
}

/** Every setting's value, in the table's order: the variable if set and not empty, else the default; both through the setting's parse. */
function readSettings(env: Record<string, string | undefined>): SettingValues {
  const values: Record<string, unknown> = {};
  for (const s of SETTINGS as readonly Setting[]) {
    const raw = env[s.name] || (typeof s.default === 'string' ? s.default : undefined);
    values[s.name] = raw === undefined ? undefined : setting(s.name, raw, s.parse);
  }
  return values as SettingValues;
}
