/**
 * The protected resources tokens can be bound to (RFC 8707): the API, whose
 * identifier is the issuer itself, and the MCP endpoint.
 */
export interface Resources {
  api: string;
  mcp: string;
}

/** Each resource's path on the issuer: the one place the MCP endpoint's path is written. */
export const RESOURCE_PATHS: Readonly<Resources> = { api: '', mcp: '/mcp' };

export function resourcesFor(issuer: string): Resources {
  return { api: issuer + RESOURCE_PATHS.api, mcp: issuer + RESOURCE_PATHS.mcp };
}

/** Compares resource identifiers after dropping one trailing slash ("https://x/" ~ "https://x"). */
export function normaliseResource(value: string): string {
  return value.endsWith('/') ? value.slice(0, -1) : value;
}

export type ResourceCheck = { ok: true; resource: string } | { ok: false; reason: string };

/**
 * RFC 8707 §2: "The value of the resource parameter MUST be an absolute URI
 * ... MUST NOT include a fragment component." Lyceum also requires it to name
 * one of its own resources. Returns the canonical identifier.
 */
export function checkResource(value: string, resources: Resources): ResourceCheck {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { ok: false, reason: 'resource must be an absolute URI' };
  }
  if (value.includes('#') || url.hash) return { ok: false, reason: 'resource must not contain a fragment' };
  const wanted = normaliseResource(value);
  const known = [resources.api, resources.mcp].find((r) => normaliseResource(r) === wanted);
  if (!known) return { ok: false, reason: `unknown resource; use ${resources.api} or ${resources.mcp}` };
  return { ok: true, resource: known };
}
