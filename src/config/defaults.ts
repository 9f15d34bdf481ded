/**
 * Every setting Lyceum reads from the environment, each declared once:
 * its name, its default, how its value is parsed (which states the values it
 * accepts) and what it means. loadConfig (index.ts), `lyceum help` and
 * docs/configuration.md (configuration-doc.ts) are all derived from this table.
 *
 * A row: { name, default, parse, description }. `default` is the value used
 * when the variable is unset or empty, written as it would be set (it goes
 * through parse like a set value), or unset('...') when there is none: then
 * loadConfig gets undefined and the text says what that means. A new setting
 * is one row here plus where loadConfig puts its value in the Config.
 */
import { AUTHORIZATION_SERVER } from '../util/authorization-server.ts';
import { bool, database, durations, emailAddress, hostNames, int, issuer, loopbackHosts, oneOf, origins, redisUrl, text, trustProxy, type Parse } from './parse.ts';

/** The default of a setting that has no value when unset; `meaning` is shown as its default. */
export interface Unset {
  readonly unset: string;
}
export const unset = (meaning: string): Unset => ({ unset: meaning });

export interface Setting<T = unknown> {
  readonly name: string;
  readonly default: string | Unset;
  readonly parse: Parse<T>;
  readonly description: string;
}

/** The default as docs and help print it. */
export const defaultText = (s: Setting): string => (typeof s.default === 'string' ? s.default : s.default.unset);

export const SETTINGS = [
  { name: 'PORT', default: '3000', parse: int({ min: 0, max: 65_535 }), description: 'TCP port to listen on (0 picks a free port).' },
  { name: 'HOST', default: '127.0.0.1', parse: text(), description: 'Interface to bind. Use 0.0.0.0 behind a load balancer.' },
  { name: 'PUBLIC_URL', default: unset('http://127.0.0.1:{PORT}'), parse: issuer, description: 'The issuer: the exact origin clients use.' },
  { name: 'DATABASE_URL', default: './data/lyceum.sqlite', parse: database, description: 'A SQLite file (embedded, default) or a PostgreSQL database shared by every instance.' },
  {
    name: 'DB_POOL_SIZE',
    default: '10',
    parse: int({ min: 1, max: 1000 }),
    description:
      'PostgreSQL only: connections each instance keeps at most. Every instance and the `lyceum` command together must fit in the server\'s max_connections (docs/deployment.md "Database faults").',
  },
  {
    name: 'DB_ACQUIRE_TIMEOUT_MS',
    default: '3000',
    parse: int({ min: 100, max: 60_000 }),
    description:
      'PostgreSQL only: how long a request waits for a pool connection, in ms, retrying while the server refuses a connection slot; then it answers 503 temporarily_unavailable with Retry-After.',
  },
  {
    name: 'DB_STATEMENT_TIMEOUT_MS',
    default: '5000',
    parse: int({ min: 100, max: 600_000 }),
    description:
      'PostgreSQL only: the longest a statement may run (statement_timeout), in ms; a request whose statement is cancelled answers 503 temporarily_unavailable with Retry-After and its transaction is rolled back. Migrations are not bound by it.',
  },
  {
    name: 'DB_LOCK_TIMEOUT_MS',
    default: '2000',
    parse: int({ min: 100, max: 600_000 }),
    description:
      "PostgreSQL only: the longest a statement waits for a lock (lock_timeout), in ms, e.g. behind a migration or an operator's open transaction; then the request answers 503 temporarily_unavailable with Retry-After and its transaction is rolled back.",
  },
  { name: 'CODE_TTL_SECONDS', default: '60', parse: int({ min: 10, max: 600 }), description: 'Lifetime of an authorization code.' },
  { name: 'ACCESS_TOKEN_TTL_SECONDS', default: '3600', parse: int({ min: 60, max: 86_400 }), description: 'Lifetime of an access token.' },
  { name: 'REFRESH_TOKEN_TTL_SECONDS', default: '2592000', parse: int({ min: 3600, max: 31_536_000 }), description: 'Lifetime of a refresh token family from its last rotation (30 days by default).' },
  { name: 'REFRESH_GRACE_SECONDS', default: '10', parse: int({ min: 0, max: 60 }), description: 'Window in which a replayed refresh token returns the same successor instead of ending its family.' },
  { name: 'SESSION_TTL_SECONDS', default: '43200', parse: int({ min: 300, max: 2_592_000 }), description: 'Lifetime of a browser sign-in session.' },
  { name: 'TRUST_PROXY', default: 'false', parse: trustProxy, description: 'Trust X-Forwarded-* headers: from no proxy, from any, from so many hops, or from the listed proxy addresses.' },
  {
    name: 'LOG_LEVEL',
    default: 'info',
    parse: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    description: 'The least severe level logged (silent: nothing). Tokens, codes, secrets and passwords are never logged.',
  },
  {
    name: 'ACCESS_LOG',
    default: 'false',
    parse: bool(),
    description:
      'true: one line per request at info (method, URL with credential parameters redacted, client address, status, time). Off by default: a load balancer in front keeps its own, and client addresses are personal data. Events (failed sign-ins, registrations, revocations, errors) are logged either way.',
  },
  {
    name: 'LOOPBACK_HOSTS',
    default: AUTHORIZATION_SERVER.loopbackHosts.join(','),
    parse: loopbackHosts,
    description: 'Hosts accepted in registered loopback redirect URIs; set to "127.0.0.1,[::1]" to allow IP literals only.',
  },
  {
    name: 'KEYS_SECRET',
    default: unset('(SQLite: generated into keys.secret beside the database file; PostgreSQL: required)'),
    parse: text({ minLength: 32 }),
    description:
      'Seals the private ID-token signing keys in the store (JWE, A256GCM) and keys the sign-in and consent forms’ CSRF tokens (a key derived with HKDF). Every instance on one database needs the same value.',
  },
  { name: 'ID_TOKEN_TTL_SECONDS', default: '3600', parse: int({ min: 60, max: 86_400 }), description: 'Lifetime of an ID token; retired signing keys stay published this long.' },
  { name: 'REGISTRATION_BODY_LIMIT', default: '16384', parse: int({ min: 1024, max: 1_048_576 }), description: 'Largest registration request body in bytes.' },
  {
    name: 'RATE_LIMIT_REGISTER_PER_MINUTE',
    default: '60',
    parse: int({ min: 0, max: 100_000 }),
    description: 'Client registrations accepted per client IP address per minute (0 disables the limit); more get 429 too_many_requests.',
  },
  {
    name: 'RATE_LIMIT_SIGN_IN_PER_MINUTE',
    default: '30',
    parse: int({ min: 0, max: 100_000 }),
    description: 'Sign-in form submissions accepted per client IP address per minute (0 disables the limit); more get a 429 page.',
  },
  {
    name: 'RATE_LIMIT_DEVICE_PER_MINUTE',
    default: '30',
    parse: int({ min: 0, max: 100_000 }),
    description: 'Device authorizations (RFC 8628) started per client IP address per minute (0 disables the limit); more get 429 too_many_requests.',
  },
  {
    name: 'RATE_LIMIT_MCP_PER_MINUTE',
    default: '600',
    parse: int({ min: 0, max: 100_000 }),
    description: 'MCP requests accepted per client per minute — per access token, or per IP address for anonymous callers (0 disables the limit); more get 429 too_many_requests.',
  },
  {
    name: 'MCP_ALLOWED_ORIGINS',
    default: unset("(none: only the issuer's own origin)"),
    parse: origins,
    description:
      "Origins of browser-based MCP clients allowed to call /mcp besides the issuer's own, e.g. http://localhost:6274 for the MCP Inspector. A request whose Origin header is anything else gets 403 (DNS-rebinding protection); requests without Origin (CLI tools, IDE agents) are always served.",
  },
  {
    name: 'SIGN_IN_FREE_FAILURES',
    default: '5',
    parse: int({ min: 1, max: 100 }),
    description:
      'Wrong passwords allowed for one account (sign-in form and the current_password of PATCH /api/v1/account together, from any address) before each further check waits. The count is per account, in the database, shared by every instance.',
  },
  {
    name: 'SIGN_IN_FIRST_DELAY_SECONDS',
    default: '1',
    parse: int({ min: 1, max: 3600 }),
    description:
      'The wait after the last free failure; it doubles with each further failure. Meanwhile every password check of the account, even a correct one, gets 429 with Retry-After; afterwards the account works as before.',
  },
  { name: 'SIGN_IN_MAX_DELAY_SECONDS', default: '900', parse: int({ min: 1, max: 86_400 }), description: 'The longest wait between password checks of one account; it caps the first delay too.' },
  {
    name: 'SIGN_IN_FORGET_FAILURES_SECONDS',
    default: '3600',
    parse: int({ min: 1, max: 604_800 }),
    description: 'How long after its last wait ends an account’s failure count is forgotten; a correct password forgets it at once.',
  },
  {
    name: 'MAX_REGISTERED_CLIENTS',
    default: '10000',
    parse: int({ min: 1, max: 10_000_000 }),
    description:
      'Registered clients at most. Past it, registration answers 429 too_many_requests with Retry-After until the purge removes unused clients or an operator deletes some (`lyceum clients delete`).',
  },
  {
    name: 'UNUSED_CLIENT_TTL_SECONDS',
    default: '86400',
    parse: int({ min: 60, max: 31_536_000 }),
    description: 'A client that never obtained a token is deleted by the background purge this long after its registration (a day by default). Clients that obtained a token are kept.',
  },
  {
    name: 'CIMD_ALLOW_HOSTS',
    default: unset('(none)'),
    parse: hostNames,
    description:
      'Host names whose client metadata documents may be fetched even though they resolve to a loopback, private or other special-use address (a client_id that is an https URL, docs/decisions.md "Client ID Metadata Documents"). For tests and private deployments only; every other host must resolve to public addresses. The https certificate is checked against Node\'s trust store, which NODE_EXTRA_CA_CERTS extends.',
  },
  {
    name: 'CIMD_FETCH_TIMEOUT_MS',
    default: '3000',
    parse: int({ min: 100, max: 30_000 }),
    description: 'How long fetching one client metadata document may take, connection to last byte, in ms; slower, the authorization is refused as invalid_client.',
  },
  {
    name: 'CIMD_MAX_BYTES',
    default: '5120',
    parse: int({ min: 512, max: 65_536 }),
    description: 'Largest client metadata document read, in bytes (5 KB by default, the size its specification recommends); a larger one is refused as invalid_client.',
  },
  {
    name: 'CIMD_FETCHES_PER_HOST_PER_MINUTE',
    default: '10',
    parse: int({ min: 0, max: 10_000 }),
    description:
      'Client metadata documents fetched from one host (its registrable domain: a.example.com and b.example.com are one) per minute by each instance (0 disables the limit); an authorization that would need one more gets 429 too_many_requests with Retry-After. Cached documents cost nothing.',
  },
  {
    name: 'RATE_LIMIT_UPLOAD_PER_MINUTE',
    default: '30',
    parse: int({ min: 0, max: 100_000 }),
    description: 'File uploads (POST /api/v1/storage) accepted per access token per minute (0 disables the limit); more get 429 too_many_requests with Retry-After.',
  },
  {
    name: 'STORAGE_QUOTA_BYTES',
    default: '1073741824',
    parse: int({ min: 1024, max: 1_125_899_906_842_624 }),
    description: 'Total bytes of stored files the school may keep (1 GiB by default). An upload that would pass it gets 413 invalid_request; deleting files frees room.',
  },
  {
    name: 'REDIS_URL',
    default: unset('(none: each instance counts rate limits in its own memory)'),
    parse: redisUrl,
    description: 'When set, rate-limit counters are kept in Redis and shared by every instance; set it when several instances serve one site.',
  },
  {
    name: 'REDIS_KEY_PREFIX',
    default: 'lyceum:',
    parse: text({ maxLength: 100, pattern: /^[\x21-\x7e]+$/, means: 'printable ASCII without spaces' }),
    description: 'Prefix of the rate-limit keys Lyceum writes to Redis.',
  },
  {
    name: 'OWNER_EMAIL',
    default: 'owner@lyceum.test',
    parse: emailAddress,
    description:
      'Email address of the school owner that `lyceum serve` creates on a database with no users; its one-time password is printed, or written to owner-password.txt when stdout is not a terminal.',
  },
  {
    name: 'IDEMPOTENCY_KEY_RETENTION_SECONDS',
    default: '86400',
    parse: int({ min: 86_400, max: 2_592_000 }),
    description:
      'How long the answer to a POST under /api/v1 sent with an Idempotency-Key is kept (a day at least, by default): a retry with the same key within it gets that answer again instead of a second record. The background purge deletes older ones.',
  },
  {
    name: 'ACTIVITY_RETENTION_DAYS',
    default: '365',
    parse: int({ min: 1, max: 36_500 }),
    description: 'How long entries of the activity log (GET /api/v1/activity) are kept before the background purge deletes them, in days. Nothing else edits or deletes an entry.',
  },
  {
    name: 'PURGE_INTERVAL_SECONDS',
    default: '600',
    parse: int({ min: 1, max: 86_400 }),
    description:
      'How often `lyceum serve` deletes codes, tokens and sessions that expired (or were revoked) more than a day ago, forgotten password-failure counts and Idempotency-Key answers past their retention, in small batches.',
  },
  {
    name: 'READY_TIMEOUT_MS',
    default: '1000',
    parse: int({ min: 10, max: 30_000 }),
    description: 'How long GET /readyz waits for the database to answer a trivial query, in ms; slower, or failing, it answers 503 with Retry-After. Point load balancers at /readyz.',
  },
  {
    name: 'METRICS_PORT',
    default: '0',
    parse: int({ min: 0, max: 65_535 }),
    description:
      'TCP port of a separate listener serving Prometheus metrics at GET /metrics (request counts and latency by route, tokens issued, token errors, rate-limit hits, process metrics). 0 (the default) starts none; it may not be the public PORT, which never serves /metrics.',
  },
  {
    name: 'METRICS_HOST',
    default: '127.0.0.1',
    parse: text(),
    description: 'Interface the metrics listener binds (METRICS_PORT). Keep it private: a loopback or internal address your Prometheus reaches, never a public one.',
  },
  {
    name: 'SQLITE_BUSY_TIMEOUT_MS',
    default: '5000',
    parse: int({ min: 10, max: 60_000 }),
    description:
      'SQLite: how long a write waits while another process (the CLI, a backup, a sqlite3 shell) holds the database’s write lock, in ms. The wait is retries with pauses, so other requests and reads go on meanwhile; past it the request answers 503 temporarily_unavailable with Retry-After and nothing of it is written.',
  },
  {
    name: 'SHUTDOWN_DRAIN_MS',
    default: '5000',
    parse: int({ min: 0, max: 120_000 }),
    description:
      'On SIGTERM or SIGINT, how long `lyceum serve` goes on serving requests while GET /readyz answers 503, in ms, so a load balancer notices and stops sending traffic; then it stops listening.',
  },
  {
    name: 'SHUTDOWN_GRACE_MS',
    default: '10000',
    parse: int({ min: 0, max: 120_000 }),
    description: 'After the listener closes, how long requests in flight get to finish, in ms; connections still open then are closed and the process exits (code 0).',
  },
  {
    name: 'WEBHOOK_RETRY_SCHEDULE',
    default: '10s,1m,5m,30m,2h,5h,10h,10h',
    parse: durations,
    description:
      "Waits between a webhook delivery's failed attempts and the next (each with up to a tenth added at random, so receivers coming back are not hit all at once); one attempt more than the list is long, then the delivery is failed.",
  },
  {
    name: 'WEBHOOK_TIMEOUT_MS',
    default: '10000',
    parse: int({ min: 100, max: 60_000 }),
    description: 'How long a webhook receiver has to answer, connection to last byte, in ms; an answer other than 2xx within it is a failed attempt.',
  },
  {
    name: 'WEBHOOK_DISABLE_AFTER_FAILURES',
    default: '5',
    parse: int({ min: 1, max: 1000 }),
    description: 'A webhook subscription is disabled (enabled false, with the reason) once this many of its deliveries in a row have failed every attempt; PATCH enabled=true turns it back on.',
  },
  {
    name: 'WEBHOOK_POLL_INTERVAL_MS',
    default: '1000',
    parse: int({ min: 10, max: 600_000 }),
    description: 'How often each instance looks for webhook deliveries that are due, in ms (an idle look is one read).',
  },
  {
    name: 'WEBHOOK_LOG_DAYS',
    default: '30',
    parse: int({ min: 1, max: 3650 }),
    description: 'How long finished webhook deliveries (succeeded or failed) stay in the delivery log before the background purge deletes them, with their events, in days.',
  },
  {
    name: 'WEBHOOK_MAX_SUBSCRIPTIONS',
    default: '100',
    parse: int({ min: 1, max: 10_000 }),
    description:
      'The most webhook subscriptions a school may have; creating one more answers 409 conflict. Every event fans out to each subscription that asked for it in the transaction of the change that caused it.',
  },
  {
    name: 'WEBHOOK_HTTP_LOOPBACK',
    default: unset('(true when PUBLIC_URL is http, false when it is https)'),
    parse: bool(),
    description:
      'true: webhook receivers may be plain http on a loopback address (a receiver under development on this machine); false: https only. A deployment served over https sends nothing in clear unless this says so.',
  },
  {
    name: 'WEBHOOK_ALLOW_HOSTS',
    default: unset('(none: only receivers at public addresses, or plain http on loopback)'),
    parse: hostNames,
    description:
      'Host names or IP addresses that webhook receivers may use although they resolve to private addresses (an internal service). Others must resolve to public addresses only; plain http goes only to loopback.',
  },
] as const satisfies readonly Setting[];

/** The names of the settings. */
export type SettingName = (typeof SETTINGS)[number]['name'];

/** What loadConfig reads: each setting's parsed value, undefined for an unset one without a default. */
export type SettingValues = {
  [S in (typeof SETTINGS)[number] as S['name']]: S['default'] extends string ? ReturnType<S['parse']> : ReturnType<S['parse']> | undefined;
};
