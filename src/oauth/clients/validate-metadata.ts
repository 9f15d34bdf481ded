import type { Config } from '../../config/index.ts';
import type { ClientMetadata } from '../../store/types.ts';
import { OAuthError } from '../errors.ts';
import { checkLoopbackRedirectUri } from '../loopback.ts';
import { formatScope, parseScope } from '../../access/scopes.ts';

const SUPPORTED_GRANTS = ['authorization_code', 'refresh_token'];
const AUTH_METHODS = ['none', 'client_secret_post'] as const;
const MAX_REDIRECT_URIS = 10;

const metadataError = (d: string) => new OAuthError('invalid_client_metadata', d);

function optionalString(body: Record<string, unknown>, field: string, max = 200): string | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || v.length === 0 || v.length > max) throw metadataError(`${field} must be a string of 1 to ${max} characters`);
  return v;
}

function optionalWebUrl(body: Record<string, unknown>, field: string): string | undefined {
  const v = optionalString(body, field, 2000);
  if (v === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(v);
  } catch {
    throw metadataError(`${field} must be an absolute URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw metadataError(`${field} must be an http(s) URL`);
  return v;
}

function stringArray(body: Record<string, unknown>, field: string, fallback: string[]): string[] {
  const v = body[field];
  if (v === undefined || v === null) return fallback;
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw metadataError(`${field} must be an array of strings`);
  return [...new Set(v as string[])];
}

/**
 * RFC 7591 §2 client metadata, checked against Lyceum's open-registration
 * rules (loopback redirect URIs only, DESIGN.md). Returns what will be stored
 * and echoed. Unknown fields are ignored; `null` counts as absent.
 */
export function validateClientMetadata(body: unknown, config: Pick<Config, 'loopbackHosts'>): ClientMetadata {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new OAuthError('invalid_request', 'The registration body must be a JSON object.');
  }
  const b = body as Record<string, unknown>;

  // RFC 7591 §2: redirect_uris — "Array of redirection URI strings"; required for the code grant.
  const requested = b.redirect_uris;
  if (!Array.isArray(requested) || requested.length === 0) {
    throw new OAuthError('invalid_redirect_uri', 'redirect_uris must be a non-empty array of loopback URIs such as http://127.0.0.1:8765/callback.');
  }
  if (requested.length > MAX_REDIRECT_URIS) {
    throw new OAuthError('invalid_redirect_uri', `At most ${MAX_REDIRECT_URIS} redirect URIs may be registered.`);
  }
  const checks = requested.map((u) => checkLoopbackRedirectUri(u, config.loopbackHosts));
  // Kept as sent, so the echo matches the client's own strings byte for byte.
  const kept = [...new Set(requested.filter((_u, i) => checks[i]!.ok) as string[])];
  if (kept.length === 0) {
    const reasons = checks.map((c) => (c.ok ? '' : c.reason)).filter(Boolean).join('; ');
    throw new OAuthError(
      'invalid_redirect_uri',
      `Open registration accepts only loopback redirect URIs (http://127.0.0.1:<port>/<path>): ${reasons}. Fixed https callbacks need a registered integration arranged with support.`,
    );
  }

  const method = b.token_endpoint_auth_method ?? 'none';
  if (!AUTH_METHODS.includes(method as (typeof AUTH_METHODS)[number])) {
    throw metadataError(`token_endpoint_auth_method must be one of ${AUTH_METHODS.join(', ')}`);
  }

  const grantTypes = stringArray(b, 'grant_types', SUPPORTED_GRANTS);
  const unsupported = grantTypes.filter((g) => !SUPPORTED_GRANTS.includes(g));
  if (unsupported.length > 0) throw metadataError(`unsupported grant_types: ${unsupported.join(', ')}`);
  if (!grantTypes.includes('authorization_code')) throw metadataError('grant_types must include authorization_code');

  const responseTypes = stringArray(b, 'response_types', ['code']);
  // RFC 7591 §2.1: grant_types and response_types must be consistent; code is the only one here.
  if (responseTypes.length !== 1 || responseTypes[0] !== 'code') throw metadataError('response_types must be ["code"]');

  const applicationType = b.application_type ?? 'native';
  if (applicationType !== 'native' && applicationType !== 'web') throw metadataError('application_type must be native or web');

  const metadata: ClientMetadata = {
    redirect_uris: kept,
    grant_types: grantTypes,
    response_types: responseTypes,
    token_endpoint_auth_method: method as ClientMetadata['token_endpoint_auth_method'],
    application_type: applicationType,
  };
  const name = optionalString(b, 'client_name');
  if (name !== undefined) metadata.client_name = name;

  // RFC 7591 §2: the server MAY replace the requested scope; unknown scopes are dropped and the kept ones echoed.
  const scope = optionalString(b, 'scope', 4000);
  if (scope !== undefined) {
    const kept = formatScope(parseScope(scope).scopes);
    if (kept) metadata.scope = kept;
  }
  for (const field of ['client_uri', 'logo_uri', 'tos_uri', 'policy_uri'] as const) {
    const v = optionalWebUrl(b, field);
    if (v !== undefined) metadata[field] = v;
  }
  for (const field of ['software_id', 'software_version'] as const) {
    const v = optionalString(b, field);
    if (v !== undefined) metadata[field] = v;
  }
  const alg = b.id_token_signed_response_alg;
  if (alg !== undefined && alg !== null) {
    if (alg !== 'RS256' && alg !== 'ES256') throw metadataError('id_token_signed_response_alg must be RS256 or ES256');
    metadata.id_token_signed_response_alg = alg;
  }
  const contacts = stringArray(b, 'contacts', []);
  if (contacts.length > 0) {
    if (contacts.length > 10 || contacts.some((c) => c.length === 0 || c.length > 200)) throw metadataError('contacts must hold at most 10 strings of 1 to 200 characters');
    metadata.contacts = contacts;
  }
  return metadata;
}
