/**
 * What Lyceum's authorization server supports, declared once: the metadata
 * documents, the OpenAPI schemas, registration, the authorize checks, the
 * store's client types and the settings all read this object, so none of
 * them can offer what another refuses. It lives among the helpers that import
 * nothing because the settings (LOOPBACK_HOSTS) read it too.
 *
 * What a deployment chooses is a setting, read where it is used: this object
 * says what may be chosen (LOOPBACK_HOSTS picks from `loopbackHosts`), and
 * limits that are settings (MAX_REGISTERED_CLIENTS, REGISTRATION_BODY_LIMIT)
 * are not here.
 */
export const AUTHORIZATION_SERVER = {
  /** RFC 7591 §2 grant_types; the token endpoint has one handler for each. */
  grantTypes: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
  /**
   * The grants that sign a person in: every client registers at least one. The code flow
   * needs redirect URIs; the device flow (RFC 8628) needs none.
   */
  signInGrantTypes: ['authorization_code', 'urn:ietf:params:oauth:grant-type:device_code'],
  /** grant_types of a registration that names none: the code flow and refresh, as browser clients expect. */
  defaultGrantTypes: ['authorization_code', 'refresh_token'],
  /** RFC 7591 §2 token_endpoint_auth_method; the first is the default. HTTP Basic is refused. */
  clientAuthMethods: ['none', 'client_secret_post'],
  /** RFC 6749 §3.1.1 response_type: the code flow only. */
  responseTypes: ['code'],
  /** OAuth 2.0 Multiple Response Types §2.1: the code comes back in the query. */
  responseModes: ['query'],
  /** RFC 7636 §4.3 code_challenge_method: S256 only, plain is refused. */
  pkceMethods: ['S256'],
  /** ID token signing algorithms (OIDC Dynamic Registration §2); the first is the default. */
  signingAlgs: ['RS256', 'ES256'],
  /** OIDC Core §3.1.2.1 prompt values; `none` stands alone. */
  promptValues: ['none', 'login', 'consent'],
  /** OIDC Dynamic Registration §2 application_type; the first is the default, and both follow the loopback rules. */
  applicationTypes: ['native', 'web'],
  /** OIDC Core §8 subject identifier types. */
  subjectTypes: ['public'],
  /**
   * A client_id that is an https URL names the client's metadata document,
   * which the server fetches (draft-ietf-oauth-client-id-metadata-document;
   * src/oauth/clients/metadata-document.ts). Such a client is always public.
   */
  clientIdMetadataDocuments: true,
  /** RFC 8252 §7.3 loopback hosts a redirect URI may name, as written in one; LOOPBACK_HOSTS picks the ones this server accepts. */
  loopbackHosts: ['127.0.0.1', '[::1]', 'localhost'],
  /** Fixed limits of what a client may send, in characters unless named otherwise. */
  limits: {
    /** A client_id, a metadata document's URL included. */
    clientId: 200,
    redirectUris: 10,
    redirectUriLength: 2000,
    contacts: 10,
    metadataString: 200,
    metadataUrl: 2000,
    scope: 4000,
    nonce: 500,
    /**
     * The largest `state`, in UTF-8 bytes. It comes back percent-encoded in the
     * Location header (up to 3 characters a byte); with a 2000-character
     * redirect URI and an error_description of at most
     * `redirectErrorDescription` characters (each up to 3 when encoded) the
     * header stays well inside the 16 KB of headers Node's HTTP clients accept.
     */
    stateBytes: 2000,
    /** The longest error_description an authorization error redirect carries, in characters; a longer one is cut. */
    redirectErrorDescription: 300,
    /**
     * How long a client metadata document is kept, in seconds: its
     * Cache-Control max-age within [min, max] (no max-age or no-store: min);
     * a failed fetch or an invalid document is remembered for `failure`.
     * `entries` documents at most are kept by each instance.
     */
    metadataDocumentCache: { min: 300, max: 86_400, failure: 60, entries: 1000 },
  },
  /**
   * The device authorization grant (RFC 8628), fixed numbers (docs/decisions.md
   * says why each is what it is).
   */
  deviceFlow: {
    /**
     * RFC 8628 §6.1: the user code's characters, its own example of "base-20": twenty consonants.
     * Without vowels no word can be spelt and there is no O or I; without digits, no 0 or 1 to mistake for them.
     */
    userCodeAlphabet: 'BCDFGHJKLMNPQRSTVWXZ',
    /** Characters of a user code, shown as two groups of four joined by a dash. */
    userCodeLength: 8,
    /** Seconds a device code and its user code live (expires_in). */
    expiresIn: 600,
    /** RFC 8628 §3.2 interval: seconds a client waits between polls. */
    interval: 5,
    /** RFC 8628 §3.5 slow_down: "the interval MUST be increased by 5 seconds for this and all subsequent requests". */
    slowDownStep: 5,
    /**
     * Wrong user codes typed on the verification page, counted per account and per client
     * address: the `free`-th in a row starts a wait of `firstDelay` seconds, each further one
     * doubles it up to `maxDelay`, and a count is forgotten `forgetAfter` seconds after its last
     * wait. An address may be a whole school behind one gateway, so it is allowed more.
     */
    wrongCodes: {
      perAccount: { free: 5, firstDelay: 30, maxDelay: 900, forgetAfter: 3600 },
      perAddress: { free: 20, firstDelay: 30, maxDelay: 900, forgetAfter: 3600 },
    },
  },
} as const;

type Capabilities = typeof AUTHORIZATION_SERVER;
export type GrantType = Capabilities['grantTypes'][number];
/** RFC 8628 §3.4's grant_type. */
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code' satisfies GrantType;
export type ClientAuthMethod = Capabilities['clientAuthMethods'][number];
export type ResponseType = Capabilities['responseTypes'][number];
export type PkceMethod = Capabilities['pkceMethods'][number];
export type SigningAlg = Capabilities['signingAlgs'][number];
export type PromptValue = Capabilities['promptValues'][number];
export type ApplicationType = Capabilities['applicationTypes'][number];
export type LoopbackHost = Capabilities['loopbackHosts'][number];

/** Whether `value` is one of `list`: narrows an unknown input to the list's union. */
export function isOneOf<T extends string>(list: readonly T[], value: unknown): value is T {
  return typeof value === 'string' && (list as readonly string[]).includes(value);
}

/** A list as prose: "a, b or c". */
export function orList(list: readonly string[]): string {
  return list.length <= 1 ? list.join('') : `${list.slice(0, -1).join(', ')} or ${list.at(-1)}`;
}
