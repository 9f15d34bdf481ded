/**
 * loadConfig(env), checked against the documented settings of
 * src/config/defaults.ts: every documented variable is read, its documented
 * default is the one used, and a bad value is refused with a one-line
 * ConfigError that starts with the variable's name.
 */
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../src/config/defaults.ts';
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
  RATE_LIMIT_MCP_PER_MINUTE: { valid: '7', read: (c) => c.rateLimits.mcpPerMinute, expected: 7, invalid: ['-1', '100001', 'many'] },
  MCP_ALLOWED_ORIGINS: {
    valid: ' http://localhost:6274 , https://inspector.example',
    read: (c) => c.mcpAllowedOrigins,
    expected: ['http://localhost:6274', 'https://inspector.example'],
    invalid: ['localhost:6274', 'http://localhost:6274/', 'http://LOCALHOST:6274', 'https://inspector.example/path', 'ftp://files.example', 'null', '*'],
  },
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
  PURGE_INTERVAL_SECONDS: { valid: '60', read: (c) => c.purgeInterval, expected: 60, invalid: ['0', '86401', 'often'] },
};

const documented = SETTINGS.map((s) => s.env);
/** A documented default that is a literal value (not a prose description in parentheses). */
const literalDefault = (d: string) => !d.startsWith('(');

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

  it.each(documented.filter((env) => (EXAMPLES[env]?.invalid.length ?? 0) > 0))(
    '%s: invalid values throw a one-line ConfigError starting with the name',
    (env) => {
      const ex = EXAMPLES[env]!;
      for (const value of ex.invalid) expectRefused(env, value, ex.with);
    },
  );

  it.each(SETTINGS.filter((s) => /\((\d+)-(\d+)/.test(s.description)).map((s) => [s.env, s] as const))(
    '%s: the documented range is the enforced one',
    (env, s) => {
      const [, min, max] = /\((\d+)-(\d+)/.exec(s.description)!;
      const read = EXAMPLES[env]!.read;
      expect(read(loadConfig({ [env]: min! }))).toBe(Number(min));
      expect(read(loadConfig({ [env]: max! }))).toBe(Number(max));
      if (Number(min) > 0) expectRefused(env, String(Number(min) - 1));
      expectRefused(env, String(Number(max) + 1));
      expect(Number(s.default)).toBeGreaterThanOrEqual(Number(min));
      expect(Number(s.default)).toBeLessThanOrEqual(Number(max));
    },
  );
});

describe('defaults', () => {
  it('loadConfig({}) gives the documented defaults', () => {
    const doc = Object.fromEntries(SETTINGS.map((s) => [s.env, s.default]));
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
    });
  });

  it.each(SETTINGS.filter((s) => literalDefault(s.default)).map((s) => [s.env, s.default] as const))(
    '%s: setting the documented default (%s) explicitly changes nothing',
    (env, value) => {
      expect(loadConfig({ [env]: value.replace('{PORT}', '3000') })).toEqual(loadConfig({}));
    },
  );

  it.each(documented)('%s: an empty value counts as unset', (env) => {
    expect(loadConfig({ [env]: '' })).toEqual(loadConfig({}));
    expect(loadConfig({ [env]: undefined })).toEqual(loadConfig({}));
  });

  it('the default PUBLIC_URL follows PORT', () => {
    expect(loadConfig({ PORT: '8080' }).issuer).toBe('http://127.0.0.1:8080');
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

  it.each(['http://lyceum.example', 'http://10.0.0.1:3000', 'http://192.168.1.10', 'http://lyceum.example:80'])(
    '%s (http on a host that is not loopback) is refused',
    (value) => {
      expectRefused('PUBLIC_URL', value);
    },
  );

  it.each(['ftp://lyceum.example', 'ws://127.0.0.1:3000', 'file:///srv/lyceum', 'javascript:alert(1)', 'lyceum.example', '/relative'])(
    '%s (not an http(s) URL) is refused',
    (value) => {
      expectRefused('PUBLIC_URL', value);
    },
  );

  it.each([
    'https://lyceum.example?tenant=1',
    'https://lyceum.example#top',
    'https://lyceum.example/?a=b',
  ])('%s (query or fragment) is refused', (value) => {
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
    expect(SETTINGS.find((s) => s.env === 'PUBLIC_URL')!.description).toMatch(/no path/);
    expectRefused('PUBLIC_URL', 'https://lyceum.example/school');
  });

  it('the message is one line even when the value holds a line break', () => {
    expectRefused('PUBLIC_URL', 'not a url\nsecond line');
    expectRefused('PUBLIC_URL', 'http://lyceum.example\n');
  });

  it.each(['HTTPS://LYCEUM.EXAMPLE', 'https://LYCEUM.example:443', 'HTTP://127.0.0.1:3000'])(
    '%s: when accepted, cookies are Secure exactly when the issuer is https',
    (value) => {
      let c: Config;
      try {
        c = loadConfig({ PUBLIC_URL: value });
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return;
      }
      expect(c.issuer).toBe(c.issuer.toLowerCase());
      expect(c.secureCookies, `issuer ${c.issuer}`).toBe(c.issuer.startsWith('https://'));
    },
  );
});

describe('DATABASE_URL', () => {
  it.each(['./data/lyceum.sqlite', 'lyceum.sqlite', '/var/lib/lyceum/lyceum.sqlite', '../shared/lyceum.db'])('%s is a SQLite file', (value) => {
    expect(loadConfig({ DATABASE_URL: value }).database).toEqual({ kind: 'sqlite', file: value });
  });

  it.each([PG, 'postgresql://lyceum@127.0.0.1/lyceum', 'postgres://127.0.0.1:5432/lyceum?sslmode=require&options=-c%20search_path%3Dlyceum'])(
    '%s is PostgreSQL, kept verbatim',
    (value) => {
      expect(loadConfig({ DATABASE_URL: value, KEYS_SECRET }).database).toEqual({ kind: 'postgres', url: value });
    },
  );

  it('PostgreSQL needs KEYS_SECRET, as documented', () => {
    expect(SETTINGS.find((s) => s.env === 'KEYS_SECRET')!.default).toMatch(/PostgreSQL: required/);
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

  it.each(['bad', '999.1.1.1', '10.0.0.0/99', 'dead:beef:zz', '10.0.0.1,2001:db8::/32'])(
    '%s: refused by the loader, or usable by the HTTP server',
    async (value) => {
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
    },
  );
});

describe('LOOPBACK_HOSTS and LOG_LEVEL', () => {
  it('loopback hosts are trimmed and lower-cased', () => {
    expect(loadConfig({ LOOPBACK_HOSTS: ' LOCALHOST , 127.0.0.1 ' }).loopbackHosts).toEqual(['localhost', '127.0.0.1']);
  });

  it.each(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])('LOG_LEVEL=%s is accepted', (level) => {
    expect(loadConfig({ LOG_LEVEL: level }).logLevel).toBe(level);
  });
});
