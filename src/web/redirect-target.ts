/**
 * Where a redirect URI takes the browser, as the consent and connected-apps
 * pages name it: the host of an http(s) URI, and for a private-use scheme
 * (RFC 8252 §7.1) the scheme with its host if it has one, since that names
 * the app the operating system hands the code to (`cursor://anysphere.cursor-mcp`).
 */
export function redirectTarget(uri: string): string {
  const url = new URL(uri);
  if (url.protocol === 'http:' || url.protocol === 'https:') return url.host;
  return url.host ? `${url.protocol}//${url.host}` : url.protocol;
}
