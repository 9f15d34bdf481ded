import { AUTHORIZATION_SERVER } from './authorization-server.ts';

/**
 * The names of this machine's loopback interface (RFC 8252 §7.3, §8.3): a fact both the
 * settings (an http issuer is allowed only on one) and the redirect URI rules need.
 */
const LOOPBACK_NAMES = new Set<string>([
  ...AUTHORIZATION_SERVER.loopbackHosts,
  // Stryker disable next-line StringLiteral: the only caller passes URL.hostname, which keeps the brackets of an IPv6 host, so '::1' never reaches this set.
  '::1',
]);

export function isLoopbackHost(hostname: string): boolean {
  // Stryker disable next-line MethodExpression: the only caller passes URL.hostname, which the URL parser has already lowercased.
  return LOOPBACK_NAMES.has(hostname.toLowerCase());
}
