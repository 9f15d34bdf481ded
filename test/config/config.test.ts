/**
 * loadConfig(env), checked against the settings table of
 * src/config/defaults.ts: every variable of the table is read, its default is
 * the one used, and a bad value is refused with a one-line ConfigError that
 * starts with the variable's name. The ranges and messages are stated here by
 * hand, not read back from the table.
 */
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { defaultText, SETTINGS } from '../../src/config/defaults.ts';
import { ConfigError, loadConfig, type Config } from '../../src/config/index.ts';

const KEYS_SECRET = 'config-test-keys-secret-0123456789abcdef';
const PG = 'postgres://lyceum:secret@db.example:5432/lyceum';

/** The ConfigError loadConfig throws for env, or a failure naming what it returned instead. */
function configError(env: Record<string, string | undefined>): ConfigError {
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (err) {
    expect(err, `loadConfig(${JSON.stringify(env)}) threw something else than a ConfigError`).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error(`loadConfig(${JSON.stringify(env)}) accepted the value and returned ${JSON.stringify(config)}`);
}

/** The value is refused with a single-line message that starts with the variable's name. */
function expectRefused(name: string, value: string, extra: Record<string, string> = {}): ConfigError {
  const err = configError({ ...extra, [name]: value });
  expect(err.message, `${name}=${JSON.stringify(value)}`).toMatch(new RegExp(`^${name}\\b`));
  expect(err.message, `${name}=${JSON.stringify(value)}: the message must be one line`).not.toMatch(/[\r\n]/);
  return err;
}

interface Example {
  /** A valid value that differs from the default, and what loadConfig makes of it. */
  valid: string;
  read: (c: Config) => unknown;
  expected: unknown;
  /** Values that must be refused. */
  invalid: string[];
  /** Other settings the example needs. */
  with?: Record<string, string>;
}

/** One example per documented setting. A setting added to SETTINGS needs a line here. */
const EXAMPLES: Record<string, Example> = {
  PORT: { valid: '8080', read: (c) => c.port, expected: 8080, invalid: ['abc', '-1', '65536', '80.5', '1e3', ' 80'] },
  HOST: { valid: '0.0.0.0', read: (c) => c.host, expected: '0.0.0.0', invalid: [] },
  PUBLIC_URL: {
    valid: 'https://lyceum.example',
    read: (c) => c.issuer,
    expected: 'https://lyceum.example',
    invalid: ['ftp://x', 'http://lyceum.example', 'https://lyceum.example/', 'lyceum.example'],
  },
  DATABASE_URL: {
    valid: '/var/lib/lyceum/lyceum.sqlite',
    read: (c) => c.database,
    expected: { kind: 'sqlite', file: '/var/lib/lyceum/lyceum.sqlite' },
    invalid: ['mysql://db.example/lyceum', 'http://db.example/x'],
  },
  CODE_TTL_SECONDS: { valid: '120', read: (c) => c.codeTtl, expected: 120, invalid: ['9', '601', 'ten', '60s'] },
  ACCESS_TOKEN_TTL_SECONDS: { valid: '600', read: (c) => c.accessTokenTtl, expected: 600, invalid: ['5', '86401', '1h'] },
  REFRESH_TOKEN_TTL_SECONDS: { valid: '7200', read: (c) => c.refreshTokenTtl, expected: 7200, invalid: ['3599', '31536001', 'forever'] },
  REFRESH_GRACE_SECONDS: { valid: '0', read: (c) => c.refreshGrace, expected: 0, invalid: ['61', '-1', 'none'] },
  SESSION_TTL_SECONDS: { valid: '3600', read: (c) => c.sessionTtl, expected: 3600, invalid: ['299', '2592001', 'day'] },
  TRUST_PROXY: { valid: 'true', read: (c) => c.trustProxy, expected: true, invalid: ['yes', 'always', ',', 'proxy.example'] },
  LOG_LEVEL: { valid: 'debug', read: (c) => c.logLevel, expected: 'debug', invalid: ['loud', 'verbose'] },
  ACCESS_LOG: { valid: 'true', read: (c) => c.accessLog, expected: true, invalid: ['yes', 'on', '1', 'TRUE'] },
  LOOPBACK_HOSTS: {
    valid: '127.0.0.1,[::1]',
    read: (c) => c.loopbackHosts,
    expected: ['127.0.0.1', '[::1]'],
    invalid: ['evil.example', '127.0.0.1,evil.example', ','],
  },
  KEYS_SECRET: { valid: KEYS_SECRET, read: (c) => c.keysSecret, expected: KEYS_SECRET, invalid: ['too-short'] },
  ID_TOKEN_TTL_SECONDS: { valid: '600', read: (c) => c.idTokenTtl, expected: 600, invalid: ['59', '86401', 'hour'] },
  REGISTRATION_BODY_LIMIT: { valid: '65536', read: (c) => c.registrationBodyLimit, expected: 65_536, invalid: ['big', '0', '-5'] },
  RATE_LIMIT_REGISTER_PER_MINUTE: {
    valid: '0',
    read: (c) => c.rateLimits.registerPerMinute,
    expected: 0,
    invalid: ['-1', '100001', 'lots', '1.5'],
  },
  RATE_LIMIT_SIGN_IN_PER_MINUTE: { valid: '5', read: (c) => c.rateLimits.signInPerMinute, expected: 5, invalid: ['-1', '100001', 'few'] },
  RATE_LIMIT_DEVICE_PER_MINUTE: { valid: '9', read: (c) => c.rateLimits.devicePerMinute, expected: 9, invalid: ['-1', '100001', 'some'] },
  RATE_LIMIT_MCP_PER_MINUTE: { valid: '7', read: (c) => c.rateLimits.mcpPerMinute, expected: 7, invalid: ['-1', '100001', 'many'] },
  MCP_ALLOWED_ORIGINS: {
    valid: ' http://localhost:6274 , https://inspector.example',
    read: (c) => c.mcpAllowedOrigins,
    expected: ['http://localhost:6274', 'https://inspector.example'],
    invalid: ['localhost:6274', 'http://localhost:6274/', 'http://LOCALHOST:6274', 'https://inspector.example/path', 'ftp://files.example', 'null', '*'],
  },
  CIMD_ALLOW_HOSTS: {
    valid: ' localhost , docs.internal,[::1]',
    read: (c) => [...c.clientDocuments.allowHosts],
    expected: ['localhost', 'docs.internal', '[::1]'],
    invalid: ['https://docs.internal', 'docs.internal:8443', 'Docs.Internal', 'docs.internal/x', 'a b'],
  },
  CIMD_FETCH_TIMEOUT_MS: { valid: '500', read: (c) => c.clientDocuments.timeoutMs, expected: 500, invalid: ['99', '30001', 'soon'] },
  CIMD_MAX_BYTES: { valid: '1024', read: (c) => c.clientDocuments.maxBytes, expected: 1024, invalid: ['511', '65537', '5KB'] },
  CIMD_FETCHES_PER_HOST_PER_MINUTE: { valid: '0', read: (c) => c.clientDocuments.fetchesPerHostPerMinute, expected: 0, invalid: ['-1', '10001', 'few'] },
  RATE_LIMIT_UPLOAD_PER_MINUTE: { valid: '0', read: (c) => c.rateLimits.uploadPerMinute, expected: 0, invalid: ['-1', '100001', 'some'] },
  MAX_REGISTERED_CLIENTS: { valid: '5', read: (c) => c.maxRegisteredClients, expected: 5, invalid: ['0', '10000001', 'all'] },
  UNUSED_CLIENT_TTL_SECONDS: { valid: '3600', read: (c) => c.unusedClientTtl, expected: 3600, invalid: ['59', '31536001', 'day'] },
  STORAGE_QUOTA_BYTES: { valid: '5242880', read: (c) => c.storageQuotaBytes, expected: 5_242_880, invalid: ['1023', '1125899906842625', '5MB', '1.5'] },
  REDIS_URL: {
    valid: 'rediss://cache.example:6380/0',
    read: (c) => c.redisUrl,
    expected: 'rediss://cache.example:6380/0',
    invalid: ['http://cache.example', 'cache.example:6379', 'postgres://db.example/x'],
  },
  REDIS_KEY_PREFIX: { valid: 'school-1:', read: (c) => c.redisKeyPrefix, expected: 'school-1:', invalid: ['has space', 'x'.repeat(101), 'tab\there'] },
  SIGN_IN_FREE_FAILURES: { valid: '3', read: (c) => c.passwordFailures.free, expected: 3, invalid: ['0', '101', 'few'] },
  SIGN_IN_FIRST_DELAY_SECONDS: { valid: '2', read: (c) => c.passwordFailures.firstDelay, expected: 2, invalid: ['0', '3601', '1s'] },
  SIGN_IN_MAX_DELAY_SECONDS: { valid: '60', read: (c) => c.passwordFailures.maxDelay, expected: 60, invalid: ['0', '86401', 'long'] },
  SIGN_IN_FORGET_FAILURES_SECONDS: { valid: '600', read: (c) => c.passwordFailures.forgetAfter, expected: 600, invalid: ['0', '604801', 'never'] },
  OWNER_EMAIL: {
    valid: 'Head@School.example',
    read: (c) => c.ownerEmail,
    expected: 'Head@School.example',
    invalid: ['head', 'head@school', 'head @school.example', `${'h'.repeat(320)}@school.example`],
  },
  IDEMPOTENCY_KEY_RETENTION_SECONDS: { valid: '172800', read: (c) => c.idempotencyKeyRetention, expected: 172_800, invalid: ['86399', '2592001', 'day'] },
  PURGE_INTERVAL_SECONDS: { valid: '60', read: (c) => c.purgeInterval, expected: 60, invalid: ['0', '86401', 'often'] },
  READY_TIMEOUT_MS: { valid: '250', read: (c) => c.readyTimeoutMs, expected: 250, invalid: ['9', '30001', '1s', '0.5'] },
  DB_POOL_SIZE: { valid: '4', read: (c) => c.databaseLimits.poolSize, expected: 4, invalid: ['0', '1001', 'ten'] },
  DB_ACQUIRE_TIMEOUT_MS: { valid: '1500', read: (c) => c.databaseLimits.acquireTimeoutMs, expected: 1500, invalid: ['99', '60001', '3s'] },
  DB_STATEMENT_TIMEOUT_MS: { valid: '8000', read: (c) => c.databaseLimits.statementTimeoutMs, expected: 8000, invalid: ['0', '600001', '5s'] },
  DB_LOCK_TIMEOUT_MS: { valid: '750', read: (c) => c.databaseLimits.lockTimeoutMs, expected: 750, invalid: ['0', '600001', '2s'] },
  // 3000 is the default PORT: metrics are never served on the public port.
  METRICS_PORT: { valid: '9464', read: (c) => c.metrics.port, expected: 9464, invalid: ['-1', '65536', 'on', '3000'] },
  METRICS_HOST: { valid: '10.0.0.5', read: (c) => c.metrics.host, expected: '10.0.0.5', invalid: [] },
  SQLITE_BUSY_TIMEOUT_MS: { valid: '1500', read: (c) => c.databaseLimits.sqliteBusyTimeoutMs, expected: 1500, invalid: ['9', '60001', '5s', '0.5'] },
  SHUTDOWN_DRAIN_MS: { valid: '0', read: (c) => c.shutdown.drainMs, expected: 0, invalid: ['-1', '120001', 'soon'] },
  SHUTDOWN_GRACE_MS: { valid: '2500', read: (c) => c.shutdown.graceMs, expected: 2500, invalid: ['-1', '120001', '1.5'] },
  WEBHOOK_RETRY_SCHEDULE: {
    valid: '500ms, 2s,1m,1h',
    read: (c) => c.webhooks.retryScheduleMs,
    expected: [500, 2000, 60_000, 3_600_000],
    invalid: ['10', '1d', '25h', '-1s', ',', '1.5s', Array.from({ length: 21 }, () => '1s').join(',')],
  },
  WEBHOOK_TIMEOUT_MS: { valid: '2500', read: (c) => c.webhooks.timeoutMs, expected: 2500, invalid: ['99', '60001', '1.5'] },
  WEBHOOK_DISABLE_AFTER_FAILURES: { valid: '3', read: (c) => c.webhooks.disableAfter, expected: 3, invalid: ['0', '1001', 'x'] },
  WEBHOOK_POLL_INTERVAL_MS: { valid: '250', read: (c) => c.webhooks.pollIntervalMs, expected: 250, invalid: ['9', '600001'] },
  ACTIVITY_RETENTION_DAYS: { valid: '90', read: (c) => c.activityRetentionDays, expected: 90, invalid: ['0', '36501', 'x'] },
  WEBHOOK_LOG_DAYS: { valid: '7', read: (c) => c.webhooks.logDays, expected: 7, invalid: ['0', '3651'] },
  WEBHOOK_MAX_SUBSCRIPTIONS: { valid: '5', read: (c) => c.webhooks.maxSubscriptions, expected: 5, invalid: ['0', '10001', 'x'] },
  WEBHOOK_HTTP_LOOPBACK: { valid: 'false', read: (c) => c.webhooks.allowHttp, expected: 'never', invalid: ['yes', '1'] },
  WEBHOOK_ALLOW_HOSTS: {
    valid: 'hooks.internal, 10.0.0.5,[fd00::1]',
    read: (c) => c.webhooks.allowHosts,
    expected: ['hooks.internal', '10.0.0.5', 'fd00::1'],
    invalid: ['a b', 'http://x', 'x/y', 'Hooks.Internal', 'x:80'],
  },
};

const documented = SETTINGS.map((s) => s.name);

describe('every documented setting is read by loadConfig', () => {
  it('SETTINGS has no duplicate names and every name has an example here', () => {
    expect(new Set(documented).size).toBe(documented.length);
    expect(documented.filter((env) => !EXAMPLES[env])).toEqual([]);
  });

  it.each(documented)('%s: a valid non-default value reaches the config', (env) => {
    const ex = EXAMPLES[env];
    if (!ex) throw new Error(`no example for ${env}`);
    const base = ex.with ?? {};
    const withValue = loadConfig({ ...base, [env]: ex.valid });
    expect(ex.read(withValue)).toEqual(ex.expected);
    expect(ex.read(loadConfig(base))).not.toEqual(ex.expected);
  });

  it.each(documented.filter((env) => (EXAMPLES[env]?.invalid.length ?? 0) > 0))('%s: invalid values throw a one-line ConfigError starting with the name', (env) => {
    const ex = EXAMPLES[env]!;
    for (const value of ex.invalid) expectRefused(env, value, ex.with);
  });
});

/** The whole-number settings and their accepted ranges, as documented, written out by hand. */
const RANGES: Record<string, [min: number, max: number]> = {
  PORT: [0, 65_535],
  CODE_TTL_SECONDS: [10, 600],
  ACCESS_TOKEN_TTL_SECONDS: [60, 86_400],
  REFRESH_TOKEN_TTL_SECONDS: [3600, 31_536_000],
  REFRESH_GRACE_SECONDS: [0, 60],
  SESSION_TTL_SECONDS: [300, 2_592_000],
  ID_TOKEN_TTL_SECONDS: [60, 86_400],
  REGISTRATION_BODY_LIMIT: [1024, 1_048_576],
  RATE_LIMIT_REGISTER_PER_MINUTE: [0, 100_000],
  RATE_LIMIT_SIGN_IN_PER_MINUTE: [0, 100_000],
  RATE_LIMIT_DEVICE_PER_MINUTE: [0, 100_000],
  RATE_LIMIT_MCP_PER_MINUTE: [0, 100_000],
  RATE_LIMIT_UPLOAD_PER_MINUTE: [0, 100_000],
  CIMD_FETCH_TIMEOUT_MS: [100, 30_000],
  CIMD_MAX_BYTES: [512, 65_536],
  CIMD_FETCHES_PER_HOST_PER_MINUTE: [0, 10_000],
  SIGN_IN_FREE_FAILURES: [1, 100],
  SIGN_IN_FIRST_DELAY_SECONDS: [1, 3600],
  SIGN_IN_MAX_DELAY_SECONDS: [1, 86_400],
  SIGN_IN_FORGET_FAILURES_SECONDS: [1, 604_800],
  MAX_REGISTERED_CLIENTS: [1, 10_000_000],
  UNUSED_CLIENT_TTL_SECONDS: [60, 31_536_000],
  STORAGE_QUOTA_BYTES: [1024, 1_125_899_906_842_624],
  IDEMPOTENCY_KEY_RETENTION_SECONDS: [86_400, 2_592_000],
  PURGE_INTERVAL_SECONDS: [1, 86_400],
  READY_TIMEOUT_MS: [10, 30_000],
  DB_POOL_SIZE: [1, 1000],
  DB_ACQUIRE_TIMEOUT_MS: [100, 60_000],
  DB_STATEMENT_TIMEOUT_MS: [100, 600_000],
  DB_LOCK_TIMEOUT_MS: [100, 600_000],
  METRICS_PORT: [0, 65_535],
  SQLITE_BUSY_TIMEOUT_MS: [10, 60_000],
  SHUTDOWN_DRAIN_MS: [0, 120_000],
  SHUTDOWN_GRACE_MS: [0, 120_000],
  WEBHOOK_TIMEOUT_MS: [100, 60_000],
  WEBHOOK_DISABLE_AFTER_FAILURES: [1, 1000],
  WEBHOOK_POLL_INTERVAL_MS: [10, 600_000],
  WEBHOOK_LOG_DAYS: [1, 3650],
  ACTIVITY_RETENTION_DAYS: [1, 36_500],
  WEBHOOK_MAX_SUBSCRIPTIONS: [1, 10_000],
};

describe('whole-number settings', () => {
  it('every setting the table parses as a whole number has its range stated here', () => {
    const wholeNumbers = SETTINGS.filter((s) => 'min' in s.parse).map((s) => s.name);
    expect(wholeNumbers.sort()).toEqual(Object.keys(RANGES).sort());
  });

  it.each(Object.entries(RANGES))('%s accepts %j and refuses one past either end, saying which bound', (name, [min, max]) => {
    const read = EXAMPLES[name]!.read;
    expect(read(loadConfig({ [name]: String(min) }))).toBe(min);
    expect(read(loadConfig({ [name]: String(max) }))).toBe(max);
    if (min > 0) expect(expectRefused(name, String(min - 1)).message).toBe(`${name}: must be at least ${min}`);
    expect(expectRefused(name, String(max + 1)).message).toBe(`${name}: must be at most ${max}`);
    expect(expectRefused(name, '-1').message).toBe(`${name}: must be a whole number`);
  });

  it.each(Object.entries(RANGES))('%s: help and docs print the range %j', (name, [min, max]) => {
    expect(SETTINGS.find((s) => s.name === name)!.parse.accepts).toBe(`${min} to ${max}`);
  });

  it.each(['abc', '80.5', '1e3', ' 80', '80 ', '+80', '0x50', '８０'])('PORT=%j is refused as not a whole number', (value) => {
    expect(expectRefused('PORT', value).message).toBe('PORT: must be a whole number');
  });

  it('the limits: PORT=0 picks a free port, SIGN_IN_MAX_DELAY_SECONDS=86400 is the longest wait, STORAGE_QUOTA_BYTES takes 2^50', () => {
    expect(loadConfig({ PORT: '0' }).port).toBe(0);
    expect(loadConfig({ SIGN_IN_MAX_DELAY_SECONDS: '86400' }).passwordFailures.maxDelay).toBe(86_400);
    expect(expectRefused('SIGN_IN_MAX_DELAY_SECONDS', '86401').message).toBe('SIGN_IN_MAX_DELAY_SECONDS: must be at most 86400');
    expect(loadConfig({ STORAGE_QUOTA_BYTES: String(2 ** 50) }).storageQuotaBytes).toBe(2 ** 50);
    expect(expectRefused('STORAGE_QUOTA_BYTES', '9'.repeat(400)).message).toBe('STORAGE_QUOTA_BYTES: must be at most 1125899906842624');
  });
});

describe('the messages of the other settings', () => {
  it.each([
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent'],
    [{ ACCESS_LOG: 'TRUE' }, 'ACCESS_LOG: must be true or false'],
    [{ KEYS_SECRET: 'x'.repeat(31) }, 'KEYS_SECRET: must be at least 32 characters'],
    [{ REDIS_KEY_PREFIX: 'x'.repeat(101) }, 'REDIS_KEY_PREFIX: must be at most 100 characters'],
    [{ REDIS_KEY_PREFIX: 'has space' }, 'REDIS_KEY_PREFIX: must be printable ASCII without spaces'],
    [{ PUBLIC_URL: 'lyceum.example' }, 'PUBLIC_URL: "lyceum.example" is not an absolute URL'],
    [{ PUBLIC_URL: 'https://lyceum.example?a' }, 'PUBLIC_URL: must have no query, fragment or credentials'],
    [{ PUBLIC_URL: 'http://lyceum.example' }, 'PUBLIC_URL: must use https unless the host is a loopback address'],
    [{ PUBLIC_URL: 'https://lyceum.example/' }, 'PUBLIC_URL: must not end with a slash'],
    [{ PUBLIC_URL: 'https://lyceum.example/school' }, 'PUBLIC_URL: must be an origin (scheme, host, port) with no path'],
    [{ DATABASE_URL: 'mysql://db.example/lyceum' }, 'DATABASE_URL: must be a SQLite file path or a postgres:// URL'],
    [{ DATABASE_URL: 'postgres://[bad' }, 'DATABASE_URL: not a valid postgres URL'],
    [{ DATABASE_URL: PG }, 'KEYS_SECRET: required with a postgres DATABASE_URL (every instance must share it to use the signing keys)'],
    [{ REDIS_URL: 'cache.example:6379' }, 'REDIS_URL: must be a redis:// or rediss:// URL'],
    [{ REDIS_URL: 'cache' }, 'REDIS_URL: not an absolute URL'],
    [{ OWNER_EMAIL: 'head' }, 'OWNER_EMAIL: "head" is not an email address'],
    [{ TRUST_PROXY: 'yes' }, 'TRUST_PROXY: must be true, false, a hop count or a list of IP addresses/CIDRs'],
    [{ LOOPBACK_HOSTS: '127.0.0.1,evil.example' }, 'LOOPBACK_HOSTS: evil.example is not one of 127.0.0.1, [::1], localhost'],
    [{ LOOPBACK_HOSTS: ',' }, 'LOOPBACK_HOSTS: (empty) is not one of 127.0.0.1, [::1], localhost'],
    [{ MCP_ALLOWED_ORIGINS: 'http://localhost:6274/' }, 'MCP_ALLOWED_ORIGINS: "http://localhost:6274/" is not an origin like http://localhost:6274 (scheme, host, port; lower case; no path)'],
  ] as const)('%j is refused with %j', (env, message) => {
    expect(configError(env).message).toBe(message);
  });

  it('of several bad variables, the first in the table is named', () => {
    expect(configError({ SESSION_TTL_SECONDS: '1', PORT: 'x', LOG_LEVEL: 'loud' }).message).toBe('PORT: must be a whole number');
  });
});

describe('defaults', () => {
  it('loadConfig({}) gives the documented defaults', () => {
    const doc = Object.fromEntries(SETTINGS.map((s) => [s.name, defaultText(s)]));
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: Number(doc.PORT),
      host: doc.HOST,
      issuer: doc.PUBLIC_URL!.replace('{PORT}', doc.PORT!),
      database: { kind: 'sqlite', file: doc.DATABASE_URL },
      codeTtl: Number(doc.CODE_TTL_SECONDS),
      accessTokenTtl: Number(doc.ACCESS_TOKEN_TTL_SECONDS),
      refreshTokenTtl: Number(doc.REFRESH_TOKEN_TTL_SECONDS),
      refreshGrace: Number(doc.REFRESH_GRACE_SECONDS),
      sessionTtl: Number(doc.SESSION_TTL_SECONDS),
      trustProxy: false,
      logLevel: doc.LOG_LEVEL,
      accessLog: false,
      loopbackHosts: doc.LOOPBACK_HOSTS!.split(','),
      registrationBodyLimit: Number(doc.REGISTRATION_BODY_LIMIT),
      idTokenTtl: Number(doc.ID_TOKEN_TTL_SECONDS),
      mcpAllowedOrigins: [],
      secureCookies: false,
    });
    expect(c.keysSecret).toBeUndefined();
    // The documented values themselves, as written in SETTINGS:
    expect(doc).toMatchObject({
      PORT: '3000',
      HOST: '127.0.0.1',
      PUBLIC_URL: 'http://127.0.0.1:{PORT}',
      DATABASE_URL: './data/lyceum.sqlite',
      TRUST_PROXY: 'false',
      LOG_LEVEL: 'info',
      ACCESS_LOG: 'false',
      CODE_TTL_SECONDS: '60',
      ACCESS_TOKEN_TTL_SECONDS: '3600',
      REFRESH_TOKEN_TTL_SECONDS: '2592000',
      REFRESH_GRACE_SECONDS: '10',
      SESSION_TTL_SECONDS: '43200',
      ID_TOKEN_TTL_SECONDS: '3600',
      LOOPBACK_HOSTS: '127.0.0.1,[::1],localhost',
      REGISTRATION_BODY_LIMIT: '16384',
    });
  });

  it.each(SETTINGS.flatMap((s) => (typeof s.default === 'string' ? [[s.name, s.default] as const] : [])))('%s: setting the documented default (%s) explicitly changes nothing', (env, value) => {
    expect(loadConfig({ [env]: value })).toEqual(loadConfig({}));
  });

  it('setting PUBLIC_URL to its documented default changes nothing either', () => {
    expect(loadConfig({ PUBLIC_URL: 'http://127.0.0.1:3000' })).toEqual(loadConfig({}));
  });

  it.each(SETTINGS.filter((s) => typeof s.default !== 'string').map((s) => s.name))('%s has no default value: its documented default says what unset means', (name) => {
    expect(defaultText(SETTINGS.find((s) => s.name === name)!)).toMatch(/\S/);
  });

  it.each(documented)('%s: an empty value counts as unset', (env) => {
    expect(loadConfig({ [env]: '' })).toEqual(loadConfig({}));
    expect(loadConfig({ [env]: undefined })).toEqual(loadConfig({}));
  });

  it('plain http webhook receivers on loopback follow PUBLIC_URL unless WEBHOOK_HTTP_LOOPBACK says otherwise', () => {
    expect(loadConfig({}).webhooks.allowHttp).toBe('loopback');
    const https = { PUBLIC_URL: 'https://school.example', KEYS_SECRET };
    expect(loadConfig(https).webhooks.allowHttp).toBe('never');
    expect(loadConfig({ ...https, WEBHOOK_HTTP_LOOPBACK: 'true' }).webhooks.allowHttp).toBe('loopback');
    expect(loadConfig({ WEBHOOK_HTTP_LOOPBACK: 'false' }).webhooks.allowHttp).toBe('never');
  });

  it('the default PUBLIC_URL follows PORT, as an origin', () => {
    expect(loadConfig({ PORT: '8080' }).issuer).toBe('http://127.0.0.1:8080');
    expect(loadConfig({ PORT: '80' }).issuer).toBe('http://127.0.0.1');
  });

  it('variables Lyceum does not know are ignored', () => {
    expect(loadConfig({ HOME: '/root', NODE_ENV: 'production', SOMETHING_ELSE: '1' })).toEqual(loadConfig({}));
  });
});

describe('PUBLIC_URL', () => {
  it.each([
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080', false],
    ['http://localhost:3000', 'http://localhost:3000', false],
    ['http://[::1]:3000', 'http://[::1]:3000', false],
    ['https://lyceum.example', 'https://lyceum.example', true],
    ['https://school.lyceum.example:8443', 'https://school.lyceum.example:8443', true],
    ['https://127.0.0.1:8443', 'https://127.0.0.1:8443', true],
  ])('%s is accepted as the issuer %s', (value, issuer, secure) => {
    const c = loadConfig({ PUBLIC_URL: value });
    expect(c.issuer).toBe(issuer);
    expect(c.secureCookies).toBe(secure);
  });

  it.each(['https://lyceum.example/', 'http://127.0.0.1:3000/', 'https://lyceum.example//'])('%s (trailing slash) is refused', (value) => {
    expectRefused('PUBLIC_URL', value);
  });

  it.each(['http://lyceum.example', 'http://10.0.0.1:3000', 'http://192.168.1.10', 'http://lyceum.example:80'])('%s (http on a host that is not loopback) is refused', (value) => {
    expectRefused('PUBLIC_URL', value);
  });

  it.each(['ftp://lyceum.example', 'ws://127.0.0.1:3000', 'file:///srv/lyceum', 'javascript:alert(1)', 'lyceum.example', '/relative'])('%s (not an http(s) URL) is refused', (value) => {
    expectRefused('PUBLIC_URL', value);
  });

  it.each(['https://lyceum.example?tenant=1', 'https://lyceum.example#top', 'https://lyceum.example/?a=b'])('%s (query or fragment) is refused', (value) => {
    expectRefused('PUBLIC_URL', value);
  });

  it('an empty query or fragment marker is refused too, not silently dropped from the issuer', () => {
    expectRefused('PUBLIC_URL', 'https://lyceum.example?');
    expectRefused('PUBLIC_URL', 'https://lyceum.example#');
  });

  it.each(['https://user:pass@lyceum.example', 'https://user@lyceum.example'])('%s (credentials) is refused', (value) => {
    expectRefused('PUBLIC_URL', value);
  });

  it('a path is refused, as documented (the issuer is an origin)', () => {
    expect(SETTINGS.find((s) => s.name === 'PUBLIC_URL')!.parse.accepts).toMatch(/no path/);
    expectRefused('PUBLIC_URL', 'https://lyceum.example/school');
  });

  it('the message is one line even when the value holds a line break', () => {
    expectRefused('PUBLIC_URL', 'not a url\nsecond line');
    expectRefused('PUBLIC_URL', 'http://lyceum.example\n');
  });

  it.each(['HTTPS://LYCEUM.EXAMPLE', 'https://LYCEUM.example:443', 'HTTP://127.0.0.1:3000'])('%s: when accepted, cookies are Secure exactly when the issuer is https', (value) => {
    let c: Config;
    try {
      c = loadConfig({ PUBLIC_URL: value });
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return;
    }
    expect(c.issuer).toBe(c.issuer.toLowerCase());
    expect(c.secureCookies, `issuer ${c.issuer}`).toBe(c.issuer.startsWith('https://'));
  });
});

describe('METRICS_PORT', () => {
  it('is off by default, and refused when it is the public PORT, whatever that is', () => {
    expect(loadConfig({}).metrics).toEqual({ port: 0, host: '127.0.0.1' });
    expect(expectRefused('METRICS_PORT', '8080', { PORT: '8080' }).message).toMatch(/public PORT/);
    expect(loadConfig({ PORT: '8080', METRICS_PORT: '9464' }).metrics).toEqual({ port: 9464, host: '127.0.0.1' });
    // PORT=0 picks a free port for the public listener; METRICS_PORT=0 is simply off.
    expect(loadConfig({ PORT: '0', METRICS_PORT: '0' }).metrics.port).toBe(0);
  });
});

describe('DATABASE_URL', () => {
  it.each(['./data/lyceum.sqlite', 'lyceum.sqlite', '/var/lib/lyceum/lyceum.sqlite', '../shared/lyceum.db'])('%s is a SQLite file', (value) => {
    expect(loadConfig({ DATABASE_URL: value }).database).toEqual({ kind: 'sqlite', file: value });
  });

  it.each([PG, 'postgresql://lyceum@127.0.0.1/lyceum', 'postgres://127.0.0.1:5432/lyceum?sslmode=require&options=-c%20search_path%3Dlyceum'])('%s is PostgreSQL, kept verbatim', (value) => {
    expect(loadConfig({ DATABASE_URL: value, KEYS_SECRET }).database).toEqual({ kind: 'postgres', url: value });
  });

  it('PostgreSQL needs KEYS_SECRET, as documented', () => {
    expect(defaultText(SETTINGS.find((s) => s.name === 'KEYS_SECRET')!)).toMatch(/PostgreSQL: required/);
    expectRefused('KEYS_SECRET', '', { DATABASE_URL: PG });
    expect(loadConfig({ DATABASE_URL: PG, KEYS_SECRET }).keysSecret).toBe(KEYS_SECRET);
  });

  it('SQLite does not need KEYS_SECRET', () => {
    expect(loadConfig({ DATABASE_URL: './x.sqlite' }).keysSecret).toBeUndefined();
  });

  it.each(['mysql://db.example/lyceum', 'mongodb://db.example', 'https://db.example/lyceum', 'postgres://[bad'])('%s is refused', (value) => {
    expectRefused('DATABASE_URL', value, { KEYS_SECRET });
  });
});

describe('TRUST_PROXY', () => {
  it.each([
    ['true', true],
    ['false', false],
    ['1', 1],
    ['2', 2],
    ['0', 0],
    ['10.0.0.1', ['10.0.0.1']],
    ['10.0.0.0/8, 192.168.1.1 ,::1', ['10.0.0.0/8', '192.168.1.1', '::1']],
    ['2001:db8::/32', ['2001:db8::/32']],
  ] as const)('%s → %j', (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).trustProxy).toEqual(expected);
  });

  it.each(['yes', 'on', 'proxy.example', '10.0.0.1;10.0.0.2', ','])('%s is refused', (value) => {
    expectRefused('TRUST_PROXY', value);
  });

  it.each(['bad', '999.1.1.1', '10.0.0.0/99', 'dead:beef:zz', '10.0.0.1,2001:db8::/32'])('%s: refused by the loader, or usable by the HTTP server', async (value) => {
    let c: Config;
    try {
      c = loadConfig({ TRUST_PROXY: value });
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toMatch(/^TRUST_PROXY\b/);
      return;
    }
    // Accepted: then the server must be able to start with it.
    const start = async () => {
      const app = Fastify({ trustProxy: c.trustProxy as string[] });
      await app.ready();
      await app.close();
    };
    await expect(start(), `TRUST_PROXY=${value} was accepted as ${JSON.stringify(c.trustProxy)}`).resolves.toBeUndefined();
  });
});

describe('LOOPBACK_HOSTS and LOG_LEVEL', () => {
  it('loopback hosts are trimmed and lower-cased', () => {
    expect(loadConfig({ LOOPBACK_HOSTS: ' LOCALHOST , 127.0.0.1 ' }).loopbackHosts).toEqual(['localhost', '127.0.0.1']);
  });

  it.each(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])('LOG_LEVEL=%s is accepted', (level) => {
    expect(loadConfig({ LOG_LEVEL: level }).logLevel).toBe(level);
  });
});
