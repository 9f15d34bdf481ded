/**
 * The parsers of the settings table (defaults.ts): each turns an
 * environment variable's text into the value Lyceum uses, or refuses it, and
 * says in `accepts` which values it takes — the one statement of a setting's
 * range, printed by `lyceum help` and docs/configuration.md.
 */
import { isIP } from 'node:net';
// zod's mini build, imported by name: the bundle keeps only these checks, where zod's full
// build brings every check and its locales, all compiled and run at every start.
// Its default messages are not loaded, so every check below says its own.
import { enum as zodEnum, maxLength, maximum, minLength, minimum, number, pipe, regex, string, transform, type ZodMiniType } from 'zod/mini';
import { isLoopbackHost } from '../util/loopback-host.ts';
import { AUTHORIZATION_SERVER, isOneOf, type LoopbackHost } from '../util/authorization-server.ts';
import { isEmailAddress } from '../util/email-address.ts';

/** A value a setting refuses. The message says why, without the variable's name (loadConfig puts it in front). */
export class RefusedValue extends Error {
  override name = 'RefusedValue';
}

/** A setting's check and conversion, with the values it accepts in words. */
export interface Parse<T> {
  (raw: string): T;
  /** The accepted values, e.g. "0 to 65535" or "one of info, debug": shown in `lyceum help` and the docs. */
  readonly accepts: string;
}

function parser<T, Extra extends object = object>(accepts: string, parse: (raw: string) => T, extra?: Extra): Parse<T> & Extra {
  return Object.assign((raw: string) => parse(raw), { accepts }, extra);
}

/** A parse by a zod schema; its first issue's message is the refusal. */
function schema<T, Extra extends object = object>(accepts: string, type: ZodMiniType<T, unknown>, extra?: Extra): Parse<T> & Extra {
  return parser(
    accepts,
    (raw) => {
      const result = type.safeParse(raw);
      if (!result.success) throw new RefusedValue(result.error.issues[0]!.message);
      return result.data;
    },
    extra,
  );
}

/** Any parse, with what it accepts stated by the caller. Throw RefusedValue to refuse. */
export const custom = <T>(accepts: string, parse: (raw: string) => T): Parse<T> => parser(accepts, parse);

/** A whole number from min to max, written in decimal digits only (no sign, exponent, point or space). */
export function int(bounds: { min: number; max: number }): Parse<number> & { readonly min: number; readonly max: number } {
  const { min, max } = bounds;
  const digits = pipe(string().check(regex(/^\d+$/, 'must be a whole number')), transform(Number));
  // Digits too many for a double become Infinity, which number() refuses: too large, too.
  const bounded = number(`must be at most ${max}`).check(minimum(min, `must be at least ${min}`), maximum(max, `must be at most ${max}`));
  return schema(`${min} to ${max}`, pipe(digits, bounded), { min, max });
}

/** One of the given words, exactly as written. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T): Parse<T[number]> & { readonly values: T } {
  const list = values.join(', ');
  return schema(`one of ${list}`, zodEnum(values, `must be one of ${list}`), { values });
}

/** true or false, in lower case. */
export function bool(): Parse<boolean> {
  return schema(
    'true or false',
    pipe(
      zodEnum(['true', 'false'], 'must be true or false'),
      transform((v) => v === 'true'),
    ),
  );
}

/** Text, optionally bounded in length and held to a pattern whose meaning is given in words. */
export function text(rules: { minLength?: number; maxLength?: number; pattern?: RegExp; means?: string } = {}): Parse<string> {
  const { minLength: min, maxLength: max, pattern, means } = rules;
  const words = [means, min !== undefined && `at least ${min} characters`, max !== undefined && `at most ${max} characters`].filter(Boolean);
  const checks = [
    ...(min === undefined ? [] : [minLength(min, `must be at least ${min} characters`)]),
    ...(max === undefined ? [] : [maxLength(max, `must be at most ${max} characters`)]),
    ...(pattern === undefined ? [] : [regex(pattern, `must be ${means ?? `like ${pattern}`}`)]),
  ];
  return schema(words.length > 0 ? words.join(', ') : 'any text', string().check(...checks));
}

// The settings whose values have a structure of their own.

/** PUBLIC_URL: the issuer, an origin. */
export const issuer = custom('an https origin (scheme://host[:port]: no path, query or trailing slash); http only on a loopback host', (raw) => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new RefusedValue(`${JSON.stringify(raw)} is not an absolute URL`);
  }
  // RFC 8414 §2: the issuer is a URL using the https scheme with no query or fragment components.
  if (raw.includes('?') || raw.includes('#') || url.username || url.password) {
    throw new RefusedValue('must have no query, fragment or credentials');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    throw new RefusedValue('must use https unless the host is a loopback address');
  }
  if (raw.endsWith('/')) throw new RefusedValue('must not end with a slash');
  // Well-known documents live at the origin's root; a path would move them (RFC 8414 §3.1).
  if (url.pathname !== '/') throw new RefusedValue('must be an origin (scheme, host, port) with no path');
  return url.origin;
});

export type Database = { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string };

/** DATABASE_URL: a SQLite file or a PostgreSQL URL. */
export const database = custom('a SQLite file path or a postgres:// URL', (raw): Database => {
  if (/^postgres(ql)?:\/\//.test(raw)) {
    try {
      new URL(raw);
    } catch {
      throw new RefusedValue('not a valid postgres URL');
    }
    return { kind: 'postgres', url: raw };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) {
    throw new RefusedValue('must be a SQLite file path or a postgres:// URL');
  }
  return { kind: 'sqlite', file: raw.replace(/^sqlite:/, '') };
});

/** REDIS_URL. */
export const redisUrl = custom('a redis:// or rediss:// URL', (raw) => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new RefusedValue('not an absolute URL');
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new RefusedValue('must be a redis:// or rediss:// URL');
  return raw;
});

/** MCP_ALLOWED_ORIGINS: a comma-separated list of origins, each exactly as a browser sends it in Origin: scheme://host[:port]. */
export const origins = custom('comma-separated origins (scheme://host:port, lower case, no path)', (raw) => {
  const list = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const origin of list) {
    let url: URL | undefined;
    try {
      url = new URL(origin);
    } catch {
      url = undefined;
    }
    // RFC 6454 §6.2: the ASCII serialization of an origin, with no path, query or trailing slash.
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== origin) {
      throw new RefusedValue(`${JSON.stringify(origin)} is not an origin like http://localhost:6274 (scheme, host, port; lower case; no path)`);
    }
  }
  return list;
});

/** CIMD_ALLOW_HOSTS: host names as a URL writes them (lower case; an IPv6 literal in brackets), comma-separated. */
export const hostNames = custom('comma-separated host names (lower case, no scheme or port), e.g. localhost,docs.internal', (raw) => {
  const list = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const host of list) {
    let url: URL | undefined;
    try {
      url = new URL(`https://${host}/`);
    } catch {
      url = undefined;
    }
    if (!url || url.host !== host || url.port !== '') throw new RefusedValue(`${JSON.stringify(host)} is not a host name like docs.internal (lower case, no scheme, port or path)`);
  }
  return list;
});

/** TRUST_PROXY, as Fastify's trustProxy option takes it. */
export const trustProxy = custom('true, false, a hop count, or a comma-separated list of IP addresses/CIDRs', (raw): boolean | number | string[] => {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (/^\d+$/.test(raw)) return Number(raw);
  const list = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const isAddressOrCidr = (s: string) => {
    const [address, prefix, ...rest] = s.split('/');
    const version = isIP(address ?? '');
    if (version === 0 || rest.length > 0) return false;
    return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128));
  };
  if (list.length === 0 || !list.every(isAddressOrCidr)) {
    throw new RefusedValue('must be true, false, a hop count or a list of IP addresses/CIDRs');
  }
  return list;
});

const LOOPBACK_HOSTS = AUTHORIZATION_SERVER.loopbackHosts;

/** LOOPBACK_HOSTS: trimmed, lower-cased, each one of the loopback names the authorization server supports. */
export const loopbackHosts = custom(`one or more of ${LOOPBACK_HOSTS.join(', ')}, comma-separated`, (raw): LoopbackHost[] => {
  const hosts = raw
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const bad = hosts.find((h) => !isOneOf(LOOPBACK_HOSTS, h));
  if (hosts.length === 0 || bad) throw new RefusedValue(`${bad ?? '(empty)'} is not one of ${LOOPBACK_HOSTS.join(', ')}`);
  return hosts as LoopbackHost[];
});

/** OWNER_EMAIL: checked as `lyceum users add` checks --email (trimmed, lower case), kept as written. */
export const emailAddress = custom('an email address', (raw) => {
  if (!isEmailAddress(raw.trim().toLowerCase())) throw new RefusedValue(`${JSON.stringify(raw)} is not an email address`);
  return raw;
});

const DURATION_UNITS_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** WEBHOOK_RETRY_SCHEDULE: comma-separated waits such as 10s,1m,2h (ms, s, m or h), each at most a day, at most 20 of them; in ms. */
export const durations = custom('comma-separated waits with a unit (ms, s, m, h), each at most 24h, at most 20; e.g. 10s,1m,5m', (raw): number[] => {
  const list = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (list.length === 0 || list.length > 20) throw new RefusedValue('must list 1 to 20 waits');
  return list.map((item) => {
    const m = /^(\d{1,9})(ms|s|m|h)$/.exec(item);
    const ms = m ? Number(m[1]) * DURATION_UNITS_MS[m[2] as keyof typeof DURATION_UNITS_MS] : NaN;
    if (!(ms >= 0 && ms <= 86_400_000)) throw new RefusedValue(`${JSON.stringify(item)} is not a wait like 10s, 5m or 2h of at most 24h`);
    return ms;
  });
});
