/**
 * Whether a client_id is meant as a Client Identifier URL (OAuth Client ID
 * Metadata Documents). Lyceum's own client_ids start with `lyc_`; the draft:
 * an authorization server that also issues its own "SHOULD ensure that the
 * client_id strings it generates do not start with https://". An http://
 * one is taken as a URL too, so that it is refused for its scheme rather
 * than as an unknown client.
 */
export function isClientIdUrl(clientId: string): boolean {
  return /^https?:\/\//i.test(clientId);
}
