import { AUTHORIZATION_SERVER } from './authorization-server.ts';

/**
 * The names of this machine's loopback interface (RFC 8252 §7.3, §8.3): a fact both the
 * settings (an http issuer is allowed only on one) and the redirect URI rules need.
 */
const LOOPBACK_NAMES = new Set<string>(AUTHORIZATION_SERVER.loopbackHosts);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_NAMES.has(hostname.toLowerCase());
}
