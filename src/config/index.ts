import { isIP } from 'node:net';
// zod's mini build, imported by name: the bundle keeps only these checks (40 KB, where zod's
// full build with its locales is 730 KB and took about 30 ms of every start to compile and run).
// Its default messages are not loaded, so every check below says its own.
import { _default, enum as oneOf, maxLength, maximum, minLength, minimum, number, object, optional, pipe, regex, string, transform } from 'zod/mini';
import { isLoopbackHost } from '../oauth/loopback.ts';

export interface Config {
  port: number;
  host: string;
  issuer: string;
  database: { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string };
  codeTtl: number;
  accessTokenTtl: number;
  refreshTokenTtl: number;
  refreshGrace: number;
  sessionTtl: number;
  trustProxy: boolean | number | string[];
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** One log line per request (docs/deployment.md "Logs"). */
  accessLog: boolean;
  loopbackHosts: string[];
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
  rateLimits: { registerPerMinute: number; signInPerMinute: number; mcpPerMinute: number; uploadPerMinute: number };
  /** Registered clients at most; registrations beyond get 429 (docs/configuration.md MAX_REGISTERED_CLIENTS). */
  maxRegisteredClients: number;
  /** Seconds after registration a client that never obtained a token is purged. */
  unusedClientTtl: number;
  /** Total bytes of stored files the school may keep (docs/configuration.md STORAGE_QUOTA_BYTES). */
  storageQuotaBytes: number;
  /** Shared rate-limit counters; undefined keeps them in process. */
  redisUrl: string | undefined;
  redisKeyPrefix: string;
  /** Seconds between background purges of expired codes, tokens and sessions. */
  purgeInterval: number;
  /** true when the issuer is https: cookies get the Secure attribute. */
  secureCookies: boolean;
}

/** A configuration value that cannot be used. The message names the variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

const int = (min: number, max: number) =>
  pipe(
    pipe(string().check(regex(/^\d+$/, 'must be a whole number')), transform(Number)),
    number().check(minimum(min, `must be at least ${min}`), maximum(max, `must be at most ${max}`)),
  );

const text = () => string('must be a string');

const choice = <const T extends readonly [string, ...string[]]>(values: T) => oneOf(values, `must be one of ${values.join(', ')}`);

const schema = object({
  PORT: _default(int(0, 65535), 3000),
  HOST: _default(text().check(minLength(1, 'must not be empty')), '127.0.0.1'),
  PUBLIC_URL: optional(text()),
  DATABASE_URL: _default(text().check(minLength(1, 'must not be empty')), './data/lyceum.sqlite'),
  CODE_TTL_SECONDS: _default(int(10, 600), 60),
  ACCESS_TOKEN_TTL_SECONDS: _default(int(60, 86_400), 3600),
  REFRESH_TOKEN_TTL_SECONDS: _default(int(3600, 31_536_000), 2_592_000),
  REFRESH_GRACE_SECONDS: _default(int(0, 60), 10),
  SESSION_TTL_SECONDS: _default(int(300, 2_592_000), 43_200),
  TRUST_PROXY: _default(text(), 'false'),
  LOG_LEVEL: _default(choice(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']), 'info'),
  ACCESS_LOG: _default(choice(['true', 'false']), 'false'),
  LOOPBACK_HOSTS: _default(text(), '127.0.0.1,[::1],localhost'),
  REGISTRATION_BODY_LIMIT: _default(int(1024, 1_048_576), 16_384),
  KEYS_SECRET: optional(text().check(minLength(32, 'must be at least 32 characters'))),
  ID_TOKEN_TTL_SECONDS: _default(int(60, 86_400), 3600),
  RATE_LIMIT_REGISTER_PER_MINUTE: _default(int(0, 100_000), 60),
  RATE_LIMIT_SIGN_IN_PER_MINUTE: _default(int(0, 100_000), 30),
  RATE_LIMIT_MCP_PER_MINUTE: _default(int(0, 100_000), 600),
  MCP_ALLOWED_ORIGINS: _default(text(), ''),
  SIGN_IN_FREE_FAILURES: _default(int(1, 100), 5),
  SIGN_IN_FIRST_DELAY_SECONDS: _default(int(1, 3600), 1),
  SIGN_IN_MAX_DELAY_SECONDS: _default(int(1, 86_400), 900),
  SIGN_IN_FORGET_FAILURES_SECONDS: _default(int(1, 604_800), 3600),
  RATE_LIMIT_UPLOAD_PER_MINUTE: _default(int(0, 100_000), 30),
  MAX_REGISTERED_CLIENTS: _default(int(1, 10_000_000), 10_000),
  UNUSED_CLIENT_TTL_SECONDS: _default(int(60, 31_536_000), 86_400),
  STORAGE_QUOTA_BYTES: _default(int(1024, 1_125_899_906_842_624), 1_073_741_824),
  REDIS_URL: optional(text()),
  REDIS_KEY_PREFIX: _default(
    text().check(maxLength(100, 'must be at most 100 characters'), regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces')),
    'lyceum:',
  ),
  PURGE_INTERVAL_SECONDS: _default(int(1, 86_400), 600),
});

/**
 * Reads and validates the environment. Throws ConfigError with a one-line
 * message naming the first bad variable and why it is refused.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`${String(issue.path[0])}: ${issue.message}`);
  }
  const e = parsed.data;
  const database = parseDatabaseUrl(e.DATABASE_URL);
  if (database.kind === 'postgres' && !e.KEYS_SECRET) {
    throw new ConfigError('KEYS_SECRET: required with a postgres DATABASE_URL (every instance must share it to use the signing keys)');
  }
  return {
    port: e.PORT,
    host: e.HOST,
    issuer: parseIssuer(e.PUBLIC_URL ?? `http://127.0.0.1:${e.PORT}`),
    database,
    codeTtl: e.CODE_TTL_SECONDS,
    accessTokenTtl: e.ACCESS_TOKEN_TTL_SECONDS,
    refreshTokenTtl: e.REFRESH_TOKEN_TTL_SECONDS,
    refreshGrace: e.REFRESH_GRACE_SECONDS,
    sessionTtl: e.SESSION_TTL_SECONDS,
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    logLevel: e.LOG_LEVEL,
    accessLog: e.ACCESS_LOG === 'true',
    loopbackHosts: parseLoopbackHosts(e.LOOPBACK_HOSTS),
    registrationBodyLimit: e.REGISTRATION_BODY_LIMIT,
    keysSecret: e.KEYS_SECRET,
    idTokenTtl: e.ID_TOKEN_TTL_SECONDS,
    mcpAllowedOrigins: parseOrigins(e.MCP_ALLOWED_ORIGINS),
    passwordFailures: {
      free: e.SIGN_IN_FREE_FAILURES,
      firstDelay: e.SIGN_IN_FIRST_DELAY_SECONDS,
      maxDelay: e.SIGN_IN_MAX_DELAY_SECONDS,
      forgetAfter: e.SIGN_IN_FORGET_FAILURES_SECONDS,
    },
    rateLimits: { registerPerMinute: e.RATE_LIMIT_REGISTER_PER_MINUTE, signInPerMinute: e.RATE_LIMIT_SIGN_IN_PER_MINUTE, mcpPerMinute: e.RATE_LIMIT_MCP_PER_MINUTE, uploadPerMinute: e.RATE_LIMIT_UPLOAD_PER_MINUTE },
    storageQuotaBytes: e.STORAGE_QUOTA_BYTES,
    maxRegisteredClients: e.MAX_REGISTERED_CLIENTS,
    unusedClientTtl: e.UNUSED_CLIENT_TTL_SECONDS,
    redisUrl: e.REDIS_URL === undefined ? undefined : parseRedisUrl(e.REDIS_URL),
    redisKeyPrefix: e.REDIS_KEY_PREFIX,
    purgeInterval: e.PURGE_INTERVAL_SECONDS,
    secureCookies: new URL(parseIssuer(e.PUBLIC_URL ?? `http://127.0.0.1:${e.PORT}`)).protocol === 'https:',
  };
}

function parseIssuer(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`PUBLIC_URL: ${JSON.stringify(raw)} is not an absolute URL`);
  }
  // RFC 8414 §2: the issuer is a URL using the https scheme with no query or fragment components.
  if (raw.includes('?') || raw.includes('#') || url.username || url.password) {
    throw new ConfigError('PUBLIC_URL: must have no query, fragment or credentials');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    throw new ConfigError('PUBLIC_URL: must use https unless the host is a loopback address');
  }
  if (raw.endsWith('/')) throw new ConfigError('PUBLIC_URL: must not end with a slash');
  // Well-known documents live at the origin's root; a path would move them (RFC 8414 §3.1).
  if (url.pathname !== '/') throw new ConfigError('PUBLIC_URL: must be an origin (scheme, host, port) with no path');
  return url.origin;
}

function parseDatabaseUrl(raw: string): Config['database'] {
  if (/^postgres(ql)?:\/\//.test(raw)) {
    try {
      new URL(raw);
    } catch {
      throw new ConfigError('DATABASE_URL: not a valid postgres URL');
    }
    return { kind: 'postgres', url: raw };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) {
    throw new ConfigError('DATABASE_URL: must be a SQLite file path or a postgres:// URL');
  }
  return { kind: 'sqlite', file: raw.replace(/^sqlite:/, '') };
}

function parseRedisUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('REDIS_URL: not an absolute URL');
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new ConfigError('REDIS_URL: must be a redis:// or rediss:// URL');
  return raw;
}

/** A comma-separated list of origins, each exactly as a browser sends it in Origin: scheme://host[:port]. */
function parseOrigins(raw: string): string[] {
  const origins = raw.split(',').map((s) => s.trim()).filter(Boolean);
  for (const origin of origins) {
    let url: URL | undefined;
    try {
      url = new URL(origin);
    } catch {
      url = undefined;
    }
    // RFC 6454 §6.2: the ASCII serialization of an origin, with no path, query or trailing slash.
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== origin) {
      throw new ConfigError(`MCP_ALLOWED_ORIGINS: ${JSON.stringify(origin)} is not an origin like http://localhost:6274 (scheme, host, port; lower case; no path)`);
    }
  }
  return origins;
}

function parseTrustProxy(raw: string): Config['trustProxy'] {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (/^\d+$/.test(raw)) return Number(raw);
  const list = raw.split(',').map((s) => s.trim()).filter(Boolean);
  const isAddressOrCidr = (s: string) => {
    const [address, prefix, ...rest] = s.split('/');
    const version = isIP(address ?? '');
    if (version === 0 || rest.length > 0) return false;
    return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128));
  };
  if (list.length === 0 || !list.every(isAddressOrCidr)) {
    throw new ConfigError('TRUST_PROXY: must be true, false, a hop count or a list of IP addresses/CIDRs');
  }
  return list;
}

function parseLoopbackHosts(raw: string): string[] {
  const hosts = raw.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  const allowed = new Set(['127.0.0.1', '[::1]', 'localhost']);
  const bad = hosts.find((h) => !allowed.has(h));
  if (hosts.length === 0 || bad) throw new ConfigError(`LOOPBACK_HOSTS: ${bad ?? '(empty)'} is not one of 127.0.0.1, [::1], localhost`);
  return hosts;
}
