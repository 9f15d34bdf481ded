/**
 * Loopback redirect URIs for native apps (RFC 8252 §7.3) — the only kind of
 * redirect URI Lyceum accepts at open registration. Matching is on the exact
 * strings (RFC 9700 §2.1), except for the port: no URL normalisation, so
 * `127.1`, `2130706433` or `/x/../cb` never stand in for what was registered.
 */

import { AUTHORIZATION_SERVER } from '../util/authorization-server.ts';

const MAX_LENGTH = AUTHORIZATION_SERVER.limits.redirectUriLength;

/** The parts of a loopback URI as written: host, optional port, and the rest (path and query). */
interface LoopbackParts {
  host: string;
  port: string | undefined;
  rest: string;
}

export type LoopbackCheck = { ok: true; parts: LoopbackParts } | { ok: false; reason: string };

/**
 * Checks one redirect URI against the loopback rules. Does NOT check that the
 * URI was registered; see matchRegisteredRedirectUri for that.
 */
export function checkLoopbackRedirectUri(raw: unknown, allowedHosts: readonly string[]): LoopbackCheck {
  if (typeof raw !== 'string' || raw.length === 0) return { ok: false, reason: 'a redirect URI must be a non-empty string' };
  if (raw.length > MAX_LENGTH) return { ok: false, reason: `a redirect URI must be at most ${MAX_LENGTH} characters` };
  // RFC 6749 §3.1.2: "The endpoint URI MUST NOT include a fragment component."
  if (raw.includes('#')) return { ok: false, reason: `${raw} has a fragment` };
  // RFC 8252 §7.3: "Loopback redirect URIs use the "http" scheme".
  if (!/^http:\/\//i.test(raw)) return { ok: false, reason: `${raw} is not an http loopback URI` };
  if (/^http:\/\/[^/?]*@/i.test(raw)) return { ok: false, reason: `${raw} carries user information` };
  if (/[\s\\]/.test(raw)) return { ok: false, reason: `${raw} contains white space or a backslash` };
  // The whole URI: http://, a bracketed IPv6 literal or a name, an optional port, an optional path and query.
  const m = /^http:\/\/(\[[0-9a-f:.]+\]|[^/?#:[\]@]+)(?::(\d{1,5}))?([/?][^#]*)?$/i.exec(raw);
  if (!m) return { ok: false, reason: `${raw} is not an absolute http URI` };
  const host = m[1]!.toLowerCase();
  const port = m[2];
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return { ok: false, reason: `${raw} has an invalid port` };
  if (!allowedHosts.includes(host)) return { ok: false, reason: `${raw} is not a loopback address (${allowedHosts.join(', ')})` };
  return { ok: true, parts: { host, port, rest: m[3] ?? '/' } };
}

/**
 * Finds whether a requested redirect_uri matches a registered one.
 * RFC 8252 §7.3: "The authorization server MUST allow any port to be specified
 * at the time of the request for loopback IP redirect URIs". Host, path and
 * query must match exactly, as written.
 */
export function matchRegisteredRedirectUri(requested: unknown, registered: readonly string[], allowedHosts: readonly string[]): boolean {
  const check = checkLoopbackRedirectUri(requested, allowedHosts);
  if (!check.ok) return false;
  const key = `${check.parts.host} ${check.parts.rest}`;
  return registered.some((r) => {
    const reg = checkLoopbackRedirectUri(r, allowedHosts);
    return reg.ok && `${reg.parts.host} ${reg.parts.rest}` === key;
  });
}
