/**
 * Every setting Lyceum reads from the environment, with its default and what
 * it means. This table is the single source: the config loader, `lyceum help`
 * and docs/configuration.md are all built from it.
 */
export interface SettingDoc {
  env: string;
  default: string;
  description: string;
}

export const SETTINGS: readonly SettingDoc[] = [
  { env: 'PORT', default: '3000', description: 'TCP port to listen on (0 picks a free port).' },
  { env: 'HOST', default: '127.0.0.1', description: 'Interface to bind. Use 0.0.0.0 behind a load balancer.' },
  {
    env: 'PUBLIC_URL',
    default: 'http://127.0.0.1:{PORT}',
    description:
      'The issuer: the exact origin clients use (scheme, host, port; no path, no trailing slash). https is required unless the host is a loopback address.',
  },
  {
    env: 'DATABASE_URL',
    default: './data/lyceum.sqlite',
    description: 'A SQLite file path (embedded, default) or a postgres:// URL shared by every instance.',
  },
  { env: 'CODE_TTL_SECONDS', default: '60', description: 'Lifetime of an authorization code (10-600).' },
  { env: 'ACCESS_TOKEN_TTL_SECONDS', default: '3600', description: 'Lifetime of an access token (60-86400).' },
  {
    env: 'REFRESH_TOKEN_TTL_SECONDS',
    default: '2592000',
    description: 'Lifetime of a refresh token family from its last rotation (3600-31536000, 30 days by default).',
  },
  {
    env: 'REFRESH_GRACE_SECONDS',
    default: '10',
    description:
      'Window in which a replayed refresh token returns the same successor instead of ending its family (0-60).',
  },
  { env: 'SESSION_TTL_SECONDS', default: '43200', description: 'Lifetime of a browser sign-in session (300-2592000).' },
  {
    env: 'TRUST_PROXY',
    default: 'false',
    description: 'Trust X-Forwarded-* headers: false, true, a hop count, or a comma-separated list of proxy addresses.',
  },
  {
    env: 'LOG_LEVEL',
    default: 'info',
    description: 'fatal, error, warn, info, debug, trace or silent. Tokens, codes, secrets and passwords are never logged.',
  },
  {
    env: 'ACCESS_LOG',
    default: 'false',
    description:
      'true: one line per request at info (method, URL with credential parameters redacted, client address, status, time). Off by default: a load balancer in front keeps its own, and client addresses are personal data. Events (failed sign-ins, registrations, revocations, errors) are logged either way.',
  },
  {
    env: 'LOOPBACK_HOSTS',
    default: '127.0.0.1,[::1],localhost',
    description: 'Hosts accepted in registered loopback redirect URIs; set to "127.0.0.1,[::1]" to allow IP literals only.',
  },
  {
    env: 'KEYS_SECRET',
    default: '(SQLite: generated into keys.secret beside the database file; PostgreSQL: required)',
    description:
      'At least 32 characters. Seals the private ID-token signing keys in the store (JWE, A256GCM) and keys the sign-in and consent forms’ CSRF tokens (a key derived with HKDF). Every instance on one database needs the same value.',
  },
  { env: 'ID_TOKEN_TTL_SECONDS', default: '3600', description: 'Lifetime of an ID token (60-86400); retired signing keys stay published this long.' },
  { env: 'REGISTRATION_BODY_LIMIT', default: '16384', description: 'Largest registration request body in bytes.' },
  {
    env: 'RATE_LIMIT_REGISTER_PER_MINUTE',
    default: '60',
    description: 'Client registrations accepted per client IP address per minute (0-100000, 0 disables the limit); more get 429 too_many_requests.',
  },
  {
    env: 'RATE_LIMIT_SIGN_IN_PER_MINUTE',
    default: '30',
    description: 'Sign-in form submissions accepted per client IP address per minute (0-100000, 0 disables the limit); more get a 429 page.',
  },
  {
    env: 'RATE_LIMIT_MCP_PER_MINUTE',
    default: '600',
    description: 'MCP requests accepted per client per minute — per access token, or per IP address for anonymous callers (0-100000, 0 disables the limit); more get 429 too_many_requests.',
  },
  {
    env: 'MCP_ALLOWED_ORIGINS',
    default: '(none: only the issuer\'s own origin)',
    description:
      'Comma-separated origins (scheme://host:port) of browser-based MCP clients allowed to call /mcp besides the issuer\'s own, e.g. http://localhost:6274 for the MCP Inspector. A request whose Origin header is anything else gets 403 (DNS-rebinding protection); requests without Origin (CLI tools, IDE agents) are always served.',
  },
  {
    env: 'SIGN_IN_FREE_FAILURES',
    default: '5',
    description:
      'Wrong passwords allowed for one account (sign-in form and the current_password of PATCH /api/v1/account together, from any address) before each further check waits (1-100). The count is per account, in the database, shared by every instance.',
  },
  {
    env: 'SIGN_IN_FIRST_DELAY_SECONDS',
    default: '1',
    description:
      'The wait after the last free failure (1-3600); it doubles with each further failure. Meanwhile every password check of the account, even a correct one, gets 429 with Retry-After; afterwards the account works as before.',
  },
  { env: 'SIGN_IN_MAX_DELAY_SECONDS', default: '900', description: 'The longest wait between password checks of one account (1-86400); it caps the first delay too.' },
  {
    env: 'SIGN_IN_FORGET_FAILURES_SECONDS',
    default: '3600',
    description:
      'How long after its last wait ends an account’s failure count is forgotten (1-604800); a correct password forgets it at once.',
  },
  {
    env: 'MAX_REGISTERED_CLIENTS',
    default: '10000',
    description:
      'Registered clients at most (1-10000000). Past it, registration answers 429 too_many_requests with Retry-After until the purge removes unused clients or an operator deletes some (`lyceum clients delete`).',
  },
  {
    env: 'UNUSED_CLIENT_TTL_SECONDS',
    default: '86400',
    description:
      'A client that never obtained a token is deleted by the background purge this long after its registration (60-31536000, a day by default). Clients that obtained a token are kept.',
  },
  {
    env: 'RATE_LIMIT_UPLOAD_PER_MINUTE',
    default: '30',
    description: 'File uploads (POST /api/v1/storage) accepted per access token per minute (0-100000, 0 disables the limit); more get 429 too_many_requests with Retry-After.',
  },
  {
    env: 'STORAGE_QUOTA_BYTES',
    default: '1073741824',
    description: 'Total bytes of stored files the school may keep (1024 to 1125899906842624, 1 GiB by default). An upload that would pass it gets 413 invalid_request; deleting files frees room.',
  },
  {
    env: 'REDIS_URL',
    default: '(none: each instance counts rate limits in its own memory)',
    description:
      'redis:// or rediss:// URL. When set, rate-limit counters are kept in Redis and shared by every instance; set it when several instances serve one site.',
  },
  { env: 'REDIS_KEY_PREFIX', default: 'lyceum:', description: 'Prefix of the rate-limit keys Lyceum writes to Redis.' },
  {
    env: 'PURGE_INTERVAL_SECONDS',
    default: '600',
    description: 'How often `lyceum serve` deletes codes, tokens and sessions that expired (or were revoked) more than a day ago, and forgotten password-failure counts, in small batches (1-86400).',
  },
] as const;
