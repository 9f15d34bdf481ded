/**
 * Client metadata (RFC 7591 §2) from each of its three sources, read by one
 * normaliser with a policy per source:
 * - `registration`: the JSON body anyone may send to the registration
 *   endpoint; loopback redirect URIs only (docs/decisions.md).
 * - `document`: a Client ID Metadata Document fetched from the client's own
 *   URL; always a public client.
 * - `operator`: the school's `lyceum clients add`, which vouches for https
 *   and app-scheme callbacks too.
 * Each field is read once, here; where the sources differ, their policy
 * (POLICIES) says how, so no source can quietly accept what another refuses.
 */
import { formatScope, parseScope } from '../../access/scopes.ts';
import type { ClientMetadata } from '../../store/types.ts';
import { AUTHORIZATION_SERVER as AS, isOneOf, orList, type ApplicationType, type ClientAuthMethod, type GrantType, type LoopbackHost } from '../../util/authorization-server.ts';
import { checkLoopbackRedirectUri } from '../loopback.ts';
import { checkOperatorRedirectUri, type OperatorRedirectKind } from '../operator-redirect-uri.ts';
import { claimsSchoolRegistration } from './client-name.ts';

const LIMITS = AS.limits;

export type MetadataSource = 'registration' | 'document' | 'operator';

/** Why metadata was refused: the RFC 7591 §3.2.2 error code, the field, and the rule it broke. */
export class MetadataRefusal extends Error {
  constructor(
    readonly code: 'invalid_client_metadata' | 'invalid_redirect_uri',
    readonly field: string,
    readonly rule: string,
    message: string,
  ) {
    super(message);
  }
}

type RedirectCheck = { ok: true; kind: OperatorRedirectKind } | { ok: false; reason: string };

interface MetadataPolicy {
  /** How a refusal names the field: `grant_types` for a client, `its grant_types` for a document. */
  field: (name: string) => string;
  /** Whether client_name must be there. */
  nameRequired: boolean;
  /** Whether client_name may say the school registered the app: only the school's own tool may. */
  nameMaySaySchool: boolean;
  redirectUri: (uri: unknown, loopbackHosts: readonly LoopbackHost[]) => RedirectCheck;
  /** What redirect_uris must hold, said when it is missing or empty. */
  redirectUrisAre: string;
  /** The refusal when no redirect URI is left, given each one's reason. */
  noUsableRedirectUri: (reasons: string) => string;
  /**
   * A redirect URI this source may not use, among usable ones: left out (RFC
   * 7591 §3.2.1 lets the server replace values; the answer echoes the kept
   * list), or refused.
   */
  unusableRedirectUris: 'drop' | 'refuse';
  /** The token endpoint authentication methods this source may declare; the first is the default. */
  authMethods: readonly ClientAuthMethod[];
  /** Why, when the methods are fewer than the server's. */
  authMethodsWhy?: string;
  /** Whether client_secret and client_secret_expires_at are refused (a document names a public client), or ignored. */
  refusesSecretFields: boolean;
  /** grant_types when the source names none. */
  defaultGrantTypes: readonly string[];
  /**
   * A grant type Lyceum does not offer: refused (a client registering here
   * should know), or left out (a document is read by other servers too,
   * which may offer it).
   */
  unknownGrantTypes: 'refuse' | 'drop';
  /** An unknown scope: left out (RFC 7591 §2: the server may replace the scope), or refused. */
  unknownScopes: 'drop' | 'refuse';
  /** application_type as declared, or read from the redirect URIs (all https: web). */
  applicationType: 'declared' | 'from-redirect-uris';
  /** The descriptive URL fields kept, and the schemes they may use. */
  urlFields: readonly ('client_uri' | 'logo_uri' | 'tos_uri' | 'policy_uri')[];
  urlSchemes: readonly string[];
  /** Whether the rest of RFC 7591 §2 (software_id and _version, contacts, the ID token algorithm) is kept. */
  otherFields: boolean;
  /** Whether a bad optional value is refused, or quietly left out. */
  badOptionalValues: 'refuse' | 'ignore';
}

const loopbackOnly = (uri: unknown, hosts: readonly LoopbackHost[]): RedirectCheck => {
  const check = checkLoopbackRedirectUri(uri, hosts);
  return check.ok ? { ok: true, kind: 'loopback' } : check;
};

export const METADATA_POLICIES: Record<MetadataSource, MetadataPolicy> = {
  registration: {
    field: (name) => name,
    nameRequired: false,
    nameMaySaySchool: false,
    redirectUri: loopbackOnly,
    redirectUrisAre: 'loopback URIs such as http://127.0.0.1:8765/callback.',
    noUsableRedirectUri: (reasons) =>
      `Open registration accepts only loopback redirect URIs (http://127.0.0.1:<port>/<path>): ${reasons}. Fixed https callbacks need a registered integration arranged with support.`,
    unusableRedirectUris: 'drop',
    authMethods: AS.clientAuthMethods,
    refusesSecretFields: false,
    defaultGrantTypes: AS.defaultGrantTypes,
    unknownGrantTypes: 'refuse',
    unknownScopes: 'drop',
    applicationType: 'declared',
    urlFields: ['client_uri', 'logo_uri', 'tos_uri', 'policy_uri'],
    urlSchemes: ['https:', 'http:'],
    otherFields: true,
    badOptionalValues: 'refuse',
  },
  document: {
    field: (name) => `its ${name}`,
    nameRequired: true,
    nameMaySaySchool: false,
    // https matched exactly (RFC 9700 §2.1), or loopback http (RFC 8252 §7.3); no app-scheme: no one vouches for it.
    redirectUri: (uri, hosts) => {
      if (typeof uri === 'string' && uri.startsWith('https://')) return checkOperatorRedirectUri(uri, hosts);
      return loopbackOnly(uri, hosts);
    },
    redirectUrisAre: 'https or loopback http URIs',
    noUsableRedirectUri: () => 'none of its redirect_uris is https or a loopback http URI',
    unusableRedirectUris: 'drop',
    // The draft: "the token_endpoint_auth_method property MUST NOT include client_secret_post,
    // client_secret_basic, client_secret_jwt, or any other method based around a shared symmetric secret".
    authMethods: ['none'],
    authMethodsWhy: 'a public client; shared secrets are impossible and keys are not supported',
    // The draft: "the client_secret and client_secret_expires_at properties MUST NOT be used".
    refusesSecretFields: true,
    defaultGrantTypes: ['authorization_code'],
    unknownGrantTypes: 'drop',
    unknownScopes: 'drop',
    applicationType: 'from-redirect-uris',
    urlFields: ['client_uri'],
    urlSchemes: ['https:'],
    otherFields: false,
    badOptionalValues: 'ignore',
  },
  operator: {
    field: (name) => name,
    nameRequired: true,
    nameMaySaySchool: true,
    // The CLI's flags are always strings.
    redirectUri: (uri, hosts) => checkOperatorRedirectUri(String(uri), hosts),
    redirectUrisAre: 'redirect URIs',
    noUsableRedirectUri: (reasons) => reasons,
    unusableRedirectUris: 'refuse',
    authMethods: AS.clientAuthMethods,
    refusesSecretFields: false,
    defaultGrantTypes: AS.defaultGrantTypes,
    unknownGrantTypes: 'refuse',
    unknownScopes: 'refuse',
    applicationType: 'from-redirect-uris',
    urlFields: [],
    urlSchemes: [],
    otherFields: false,
    badOptionalValues: 'refuse',
  },
};

const isAbsent = (v: unknown) => v === undefined || v === null;

/**
 * The metadata Lyceum stores for a client, read from `input` under the
 * source's policy. `null` counts as absent and unknown fields are ignored
 * (RFC 7591 §2). Throws MetadataRefusal naming the field.
 */
export function normaliseClientMetadata(input: Record<string, unknown>, source: MetadataSource, loopbackHosts: readonly LoopbackHost[]): ClientMetadata {
  const p = METADATA_POLICIES[source];
  const refuse = (name: string, rule: string, code: MetadataRefusal['code'] = 'invalid_client_metadata', message = `${p.field(name)} ${rule}`) => new MetadataRefusal(code, name, rule, message);

  /** An optional string; a bad one is refused or, under an "ignore" policy, left out. */
  const optionalString = (name: string, max: number = LIMITS.metadataString): string | undefined => {
    const v = input[name];
    if (isAbsent(v)) return undefined;
    if (typeof v === 'string' && v.length > 0 && v.length <= max) return v;
    if (p.badOptionalValues === 'ignore') return undefined;
    throw refuse(name, `must be a string of 1 to ${max} characters`);
  };
  const stringList = (name: string, fallback: readonly string[]): string[] => {
    const v = input[name];
    if (isAbsent(v)) return [...fallback];
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw refuse(name, 'must be an array of strings');
    return [...new Set(v as string[])];
  };

  // client_name: shown on the consent page beside who vouches for the app.
  const rawName = input.client_name;
  if (p.nameRequired && (typeof rawName !== 'string' || rawName.trim() === '' || rawName.length > LIMITS.metadataString)) {
    throw refuse('client_name', `must be a string of 1 to ${LIMITS.metadataString} characters`);
  }
  const name = optionalString('client_name');
  if (name !== undefined && !p.nameMaySaySchool && claimsSchoolRegistration(name)) {
    throw refuse('client_name', 'must not say the app was registered by the school: only the school registers its own apps');
  }

  const requestedGrants = stringList('grant_types', p.defaultGrantTypes);
  const unknownGrants = requestedGrants.filter((g) => !isOneOf(AS.grantTypes, g));
  if (unknownGrants.length > 0 && p.unknownGrantTypes === 'refuse') throw refuse('grant_types', `hold grant types this server does not offer: ${unknownGrants.join(', ')}`);
  if (!AS.signInGrantTypes.some((g) => requestedGrants.includes(g))) throw refuse('grant_types', `must include ${orList(AS.signInGrantTypes)}`);
  // In the capability object's order, whatever order the source used.
  const grantTypes = AS.grantTypes.filter((g) => requestedGrants.includes(g)) as GrantType[];
  // Only the code grant sends the browser back to the client; a device-grant client (RFC 8628) needs no redirect URI.
  const codeGrant = grantTypes.includes('authorization_code');

  // RFC 7591 §2: redirect_uris, "Array of redirection URI strings"; the code grant needs them.
  const requested = isAbsent(input.redirect_uris) && !codeGrant ? [] : input.redirect_uris;
  if (!Array.isArray(requested) || (requested.length === 0 && codeGrant)) throw refuse('redirect_uris', `must be a non-empty array of ${p.redirectUrisAre}`, 'invalid_redirect_uri');
  if (requested.length > LIMITS.redirectUris) throw refuse('redirect_uris', `may hold at most ${LIMITS.redirectUris} URIs`, 'invalid_redirect_uri');
  const checks = requested.map((u) => p.redirectUri(u, loopbackHosts));
  const refused = checks.flatMap((c) => (c.ok ? [] : [c.reason]));
  if (refused.length > 0 && p.unusableRedirectUris === 'refuse') throw refuse('redirect_uris', refused.join('; '), 'invalid_redirect_uri');
  if (refused.length > 0 && refused.length === checks.length) {
    const reasons = refused.join('; ');
    throw refuse('redirect_uris', reasons, 'invalid_redirect_uri', p.noUsableRedirectUri(reasons));
  }
  // Kept as sent, so the echo matches the client's own strings byte for byte.
  const redirectUris = [...new Set(requested.filter((_u, i) => checks[i]!.ok) as string[])];
  const kinds = checks.flatMap((c) => (c.ok ? [c.kind] : []));

  // RFC 7591 §2 defaults to client_secret_basic; Lyceum has no HTTP Basic, so its default is the policy's first method.
  const method = input.token_endpoint_auth_method ?? p.authMethods[0];
  if (!isOneOf(p.authMethods, method)) {
    throw refuse('token_endpoint_auth_method', p.authMethods.length > 1 ? `must be one of ${p.authMethods.join(', ')}` : `must be ${p.authMethods[0]} (${p.authMethodsWhy})`);
  }
  if (p.refusesSecretFields && (input.client_secret !== undefined || input.client_secret_expires_at !== undefined)) {
    throw refuse('client_secret', 'and client_secret_expires_at must not be there: a document names a public client');
  }

  const responseTypes = stringList('response_types', codeGrant ? AS.responseTypes : []);
  // RFC 7591 §2.1: grant_types and response_types must be consistent; one response type goes with the code grant,
  // none with the device grant. A device client that sends the code's anyway (as several do) gets [] back.
  const consistent = responseTypes.length === 1 && isOneOf(AS.responseTypes, responseTypes[0]);
  if (!consistent && (codeGrant || responseTypes.length > 0)) throw refuse('response_types', `must be ${JSON.stringify(AS.responseTypes)}${codeGrant ? '' : ' or []'}`);

  let applicationType: ApplicationType;
  if (p.applicationType === 'declared') {
    const declared = input.application_type ?? AS.applicationTypes[0];
    if (!isOneOf(AS.applicationTypes, declared)) throw refuse('application_type', `must be ${orList(AS.applicationTypes)}`);
    applicationType = declared;
  } else {
    // OIDC Dynamic Registration §2: "web" for a client that receives the code on a web server.
    applicationType = kinds.length > 0 && kinds.every((k) => k === 'https') ? 'web' : 'native';
  }

  const metadata: ClientMetadata = {
    client_name: name,
    redirect_uris: redirectUris,
    grant_types: grantTypes,
    response_types: codeGrant ? [...AS.responseTypes] : [],
    token_endpoint_auth_method: method,
    application_type: applicationType,
  };

  const scope = optionalString('scope', LIMITS.scope);
  if (scope !== undefined) {
    const { scopes, unknown } = parseScope(scope);
    if (unknown.length > 0 && p.unknownScopes === 'refuse') throw refuse('scope', `holds the unknown scope ${unknown.join(' ')}`);
    const kept = formatScope(scopes);
    if (kept) metadata.scope = kept;
    else if (p.unknownScopes === 'refuse') throw refuse('scope', 'must name at least one scope');
  }
  for (const field of p.urlFields) {
    const v = optionalString(field, LIMITS.metadataUrl);
    if (v === undefined) continue;
    if (URL.canParse(v) && p.urlSchemes.includes(new URL(v).protocol)) metadata[field] = v;
    else if (p.badOptionalValues === 'refuse') throw refuse(field, URL.canParse(v) ? `must be an ${p.urlSchemes.includes('http:') ? 'http(s)' : 'https'} URL` : 'must be an absolute URL');
  }
  if (p.otherFields) readOtherFields(input, metadata, refuse, optionalString, stringList);
  return metadata;
}

/** RFC 7591 §2's remaining fields, kept from open registration only. */
function readOtherFields(
  input: Record<string, unknown>,
  metadata: ClientMetadata,
  refuse: (name: string, rule: string) => MetadataRefusal,
  optionalString: (name: string) => string | undefined,
  stringList: (name: string, fallback: readonly string[]) => string[],
): void {
  metadata.software_id = optionalString('software_id');
  metadata.software_version = optionalString('software_version');
  const alg = input.id_token_signed_response_alg;
  if (!isAbsent(alg)) {
    if (!isOneOf(AS.signingAlgs, alg)) throw refuse('id_token_signed_response_alg', `must be ${orList(AS.signingAlgs)}`);
    metadata.id_token_signed_response_alg = alg;
  }
  const contacts = stringList('contacts', []);
  if (contacts.length > LIMITS.contacts || contacts.some((c) => c.length === 0 || c.length > LIMITS.metadataString)) {
    throw refuse('contacts', `must hold at most ${LIMITS.contacts} strings of 1 to ${LIMITS.metadataString} characters`);
  }
  if (contacts.length > 0) metadata.contacts = contacts;
}
