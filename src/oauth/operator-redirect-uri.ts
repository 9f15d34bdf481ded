/**
 * Redirect URIs of the clients the school adds with `lyceum clients add`.
 * Open registration accepts loopback URIs only (loopback.ts); an operator
 * vouches for its clients, so it may also name an https URI or a
 * private-use scheme (RFC 8252 §7.1), which is how hosted apps and desktop
 * editors receive the code. Matching is exact, as written (RFC 6749
 * §3.1.2.3, RFC 9700 §2.1), except for the port of a loopback http URI
 * (RFC 8252 §7.3), the only kind whose port changes from run to run.
 */

import { AUTHORIZATION_SERVER } from '../util/authorization-server.ts';
import { checkLoopbackRedirectUri, matchRegisteredRedirectUri } from './loopback.ts';

const MAX_LENGTH = AUTHORIZATION_SERVER.limits.redirectUriLength;

/**
 * Schemes a browser acts on itself, or that name no app: a redirect there
 * runs script, reads local files or leaves the code somewhere no client
 * listens. A private-use scheme is any other one.
 */
const REFUSED_SCHEMES = new Set(['javascript', 'vbscript', 'data', 'file', 'blob', 'filesystem', 'about', 'view-source', 'ftp', 'ws', 'wss', 'mailto', 'tel', 'sms']);

/** How a redirect URI reaches its client: a loopback listener, a web server, or an app that owns a scheme. */
export type OperatorRedirectKind = 'loopback' | 'https' | 'private-use';

export type OperatorRedirectCheck = { ok: true; kind: OperatorRedirectKind } | { ok: false; reason: string };

/** Checks one redirect URI the school wants to register; the reason is a sentence for the operator. */
export function checkOperatorRedirectUri(raw: string, loopbackHosts: readonly string[]): OperatorRedirectCheck {
  if (raw.length === 0) return { ok: false, reason: 'a redirect URI must not be empty' };
  if (raw.length > MAX_LENGTH) return { ok: false, reason: `a redirect URI must be at most ${MAX_LENGTH} characters` };
  // RFC 6749 §3.1.2: "The endpoint URI MUST NOT include a fragment component."
  if (raw.includes('#')) return { ok: false, reason: `${raw} has a fragment (#), which a redirect URI must not have` };
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused here
  if (/[\s\\\u0000-\u001f\u007f]/.test(raw)) return { ok: false, reason: `${raw} contains white space, a control character or a backslash` };
  // RFC 3986 §3.1: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(raw)?.[1]?.toLowerCase();
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (!scheme || !url) return { ok: false, reason: `${raw} is not an absolute URI (scheme:rest)` };
  if (scheme === 'http') {
    if (checkLoopbackRedirectUri(raw, loopbackHosts).ok) return { ok: true, kind: 'loopback' };
    // RFC 6749 §3.1.2.1 asks for TLS on the redirect endpoint; RFC 8252 §7.3 allows http for loopback only.
    return { ok: false, reason: `${raw} is plain http on a host that is not loopback (${loopbackHosts.join(', ')}); use https` };
  }
  if (url.username !== '' || url.password !== '') return { ok: false, reason: `${raw} carries user information` };
  if (scheme === 'https') {
    if (!/^https:\/\/[^/?]/i.test(raw) || url.hostname === '') return { ok: false, reason: `${raw} has no host` };
    return { ok: true, kind: 'https' };
  }
  if (REFUSED_SCHEMES.has(scheme)) return { ok: false, reason: `${raw} uses the ${scheme}: scheme, which no app can receive a code on` };
  // RFC 8252 §7.1: the app receives the redirect on a scheme it registered with the operating system.
  if (raw.length === scheme.length + 1) return { ok: false, reason: `${raw} has nothing after the scheme` };
  return { ok: true, kind: 'private-use' };
}

/**
 * Whether a requested redirect_uri is one registered for an operator client:
 * the same string, or a registered loopback http URI on another port.
 */
export function matchOperatorRedirectUri(requested: unknown, registered: readonly string[], loopbackHosts: readonly string[]): boolean {
  if (typeof requested !== 'string') return false;
  return registered.includes(requested) || matchRegisteredRedirectUri(requested, registered, loopbackHosts);
}
