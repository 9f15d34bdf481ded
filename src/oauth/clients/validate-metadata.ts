import type { Config } from '../../config/index.ts';
import type { ClientMetadata } from '../../store/types.ts';
import { OAuthError } from '../errors.ts';
import { checkLoopbackRedirectUri } from '../loopback.ts';
import { claimsSchoolRegistration } from './client-name.ts';
import { formatScope, parseScope } from '../../access/scopes.ts';
import { AUTHORIZATION_SERVER as AS, isOneOf, orList, type GrantType, type ResponseType } from '../../util/authorization-server.ts';

const LIMITS = AS.limits;

const metadataError = (d: string) => new OAuthError('invalid_client_metadata', d);

function optionalString(body: Record<string, unknown>, field: string, max: number = LIMITS.metadataString): string | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || v.length === 0 || v.length > max) throw metadataError(`${field} must be a string of 1 to ${max} characters`);
  return v;
}

function optionalWebUrl(body: Record<string, unknown>, field: string): string | undefined {
  const v = optionalString(body, field, LIMITS.metadataUrl);
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

function stringArray(body: Record<string, unknown>, field: string, fallback: readonly string[]): string[] {
  const v = body[field];
  if (v === undefined || v === null) return [...fallback];
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw metadataError(`${field} must be an array of strings`);
  return [...new Set(v as string[])];
}

/**
 * RFC 7591 §2 client metadata, checked against Lyceum's open-registration
 * rules (loopback redirect URIs only, docs/decisions.md). Returns what will be stored
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
  if (requested.length > LIMITS.redirectUris) {
    throw new OAuthError('invalid_redirect_uri', `At most ${LIMITS.redirectUris} redirect URIs may be registered.`);
  }
  const checks = requested.map((u) => checkLoopbackRedirectUri(u, config.loopbackHosts));
  // Kept as sent, so the echo matches the client's own strings byte for byte.
  const kept = [...new Set(requested.filter((_u, i) => checks[i]!.ok) as string[])];
  if (kept.length === 0) {
    const reasons = checks.map((c) => (c.ok ? '' : c.reason)).join('; ');
    throw new OAuthError(
      'invalid_redirect_uri',
      `Open registration accepts only loopback redirect URIs (http://127.0.0.1:<port>/<path>): ${reasons}. Fixed https callbacks need a registered integration arranged with support.`,
    );
  }

  // RFC 7591 §2: "If unspecified or omitted, the default is "client_secret_basic""; Lyceum has no
  // HTTP Basic, so its default is the first method it supports.
  const method = b.token_endpoint_auth_method ?? AS.clientAuthMethods[0];
  if (!isOneOf(AS.clientAuthMethods, method)) {
    throw metadataError(`token_endpoint_auth_method must be one of ${AS.clientAuthMethods.join(', ')}`);
  }

  const grantTypes = stringArray(b, 'grant_types', AS.grantTypes);
  const unsupported = grantTypes.filter((g) => !isOneOf(AS.grantTypes, g));
  if (unsupported.length > 0) throw metadataError(`unsupported grant_types: ${unsupported.join(', ')}`);
  if (!grantTypes.includes(AS.requiredGrantType)) throw metadataError(`grant_types must include ${AS.requiredGrantType}`);

  const responseTypes = stringArray(b, 'response_types', AS.responseTypes);
  // RFC 7591 §2.1: grant_types and response_types must be consistent; one response type goes with the code grant.
  if (responseTypes.length !== 1 || !isOneOf(AS.responseTypes, responseTypes[0])) {
    throw metadataError(`response_types must be ${JSON.stringify(AS.responseTypes)}`);
  }

  const applicationType = b.application_type ?? AS.applicationTypes[0];
  if (!isOneOf(AS.applicationTypes, applicationType)) throw metadataError(`application_type must be ${orList(AS.applicationTypes)}`);

  const metadata: ClientMetadata = {
    redirect_uris: kept,
    grant_types: grantTypes as GrantType[],
    response_types: responseTypes as ResponseType[],
    token_endpoint_auth_method: method,
    application_type: applicationType,
  };
  const name = optionalString(b, 'client_name');
  if (name !== undefined && claimsSchoolRegistration(name)) throw metadataError('client_name must not say the app was registered by the school: only the school registers its own apps');
  metadata.client_name = name;

  // RFC 7591 §2: the server MAY replace the requested scope; unknown scopes are dropped and the kept ones echoed.
  const scope = optionalString(b, 'scope', LIMITS.scope);
  if (scope !== undefined) {
    const kept = formatScope(parseScope(scope).scopes);
    if (kept) metadata.scope = kept;
  }
  for (const field of ['client_uri', 'logo_uri', 'tos_uri', 'policy_uri'] as const) {
    const v = optionalWebUrl(b, field);
    metadata[field] = v;
  }
  for (const field of ['software_id', 'software_version'] as const) {
    const v = optionalString(b, field);
    metadata[field] = v;
  }
  const alg = b.id_token_signed_response_alg;
  if (alg !== undefined && alg !== null) {
    if (!isOneOf(AS.signingAlgs, alg)) throw metadataError(`id_token_signed_response_alg must be ${orList(AS.signingAlgs)}`);
    metadata.id_token_signed_response_alg = alg;
  }
  const contacts = stringArray(b, 'contacts', []);
  if (contacts.length > 0) {
    if (contacts.length > LIMITS.contacts || contacts.some((c) => c.length === 0 || c.length > LIMITS.metadataString)) {
      throw metadataError(`contacts must hold at most ${LIMITS.contacts} strings of 1 to ${LIMITS.metadataString} characters`);
    }
    metadata.contacts = contacts;
  }
  return metadata;
}
