/**
 * Loopback redirect URIs for native apps (RFC 8252 §7.3) — the only kind of
 * redirect URI Lyceum accepts at open registration.
 */

const LOOPBACK_NAMES = new Set(['127.0.0.1', '[::1]', '::1', 'localhost']);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_NAMES.has(hostname.toLowerCase());
}

export type LoopbackCheck = { ok: true; url: URL } | { ok: false; reason: string };

/**
 * Checks one redirect URI against the loopback rules. Does NOT check that the
 * URI was registered; see matchRegisteredRedirectUri for that.
 */
export function checkLoopbackRedirectUri(raw: unknown, allowedHosts: readonly string[]): LoopbackCheck {
  if (typeof raw !== 'string' || raw.length === 0) return { ok: false, reason: 'a redirect URI must be a non-empty string' };
  if (raw.length > 2000) return { ok: false, reason: 'a redirect URI must be at most 2000 characters' };
  // RFC 6749 §3.1.2: "The endpoint URI MUST NOT include a fragment component."
  if (raw.includes('#')) return { ok: false, reason: `${raw} has a fragment` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: `${raw} is not an absolute URI` };
  }
  // RFC 8252 §7.3: "Loopback redirect URIs use the "http" scheme".
  if (url.protocol !== 'http:') return { ok: false, reason: `${raw} is not an http loopback URI` };
  if (url.username || url.password || /^[a-z]+:\/\/[^/?]*@/i.test(raw)) {
    return { ok: false, reason: `${raw} carries user information` };
  }
  if (!allowedHosts.includes(url.hostname.toLowerCase())) {
    return { ok: false, reason: `${raw} is not a loopback address (${allowedHosts.join(', ')})` };
  }
  return { ok: true, url };
}

/** The parts of a loopback URI that must match exactly; the port is left out. */
function portlessKey(url: URL): string {
  return `${url.protocol}//${url.hostname.toLowerCase()}${url.pathname}${url.search}`;
}

/**
 * Finds the registered URI a requested redirect_uri matches.
 * RFC 8252 §7.3: "The authorization server MUST allow any port to be specified
 * at the time of the request for loopback IP redirect URIs". Scheme, host,
 * path and query must match exactly.
 */
export function matchRegisteredRedirectUri(
  requested: unknown,
  registered: readonly string[],
  allowedHosts: readonly string[],
): boolean {
  const check = checkLoopbackRedirectUri(requested, allowedHosts);
  if (!check.ok) return false;
  const key = portlessKey(check.url);
  return registered.some((r) => {
    try {
      return portlessKey(new URL(r)) === key;
    } catch {
      return false;
    }
  });
}
