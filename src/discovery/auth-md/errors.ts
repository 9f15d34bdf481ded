import type { Config } from '../../config/index.ts';
import { ENDPOINTS } from '../../oauth/endpoints.ts';
import { OAUTH_ERROR_STATUS, type OAuthErrorCode } from '../../oauth/errors.ts';
import { PLATFORM_ERROR_STATUS, type PlatformErrorCode } from '../../platform/errors.ts';
import { MCP_PATH } from '../../mcp/path.ts';
import { API_PREFIX } from '../../platform/routes/paths.ts';
import { IDEMPOTENCY_WAIT_MS } from '../../platform/idempotency.ts';
import { documentedPath, PROGRESS_PATHS } from '../../platform/progress/paths.ts';
import { code, table } from '../markdown.ts';
import { AUTHORIZATION_SERVER, orList } from '../../util/authorization-server.ts';

/** Every code the server answers with: the authorization server's and the platform's. */
type ErrorCode = OAuthErrorCode | PlatformErrorCode;

/** Each code's usual status, from the registries that declare the codes. */
const STATUS: Record<ErrorCode, number> = { ...OAUTH_ERROR_STATUS, ...PLATFORM_ERROR_STATUS };

/**
 * Where and when each error code is answered. Keyed by ErrorCode, so a
 * new code does not compile until it is documented here; statuses come from
 * src/oauth/errors.ts and src/platform/errors.ts unless a case answers with another one.
 */
interface ErrorCase {
  /** Absent: the code's own status. 'redirect': sent to the client's redirect_uri (302, 303 after a form). */
  status?: number | 'redirect';
  /** Extra detail next to the status. */
  note?: string;
  where: string;
  when: string;
}

const AUTHORIZE = code(ENDPOINTS.authorization);
const TOKEN = code(ENDPOINTS.token);
const DEVICE = code(ENDPOINTS.deviceAuthorization);
const REVOKE = code(ENDPOINTS.revocation);
const INTROSPECT = code(ENDPOINTS.introspection);
const REGISTER = code(ENDPOINTS.registration);
const USERINFO = code(ENDPOINTS.userinfo);
const CLIENT_AUTH = `${TOKEN}, ${DEVICE}, ${REVOKE}, ${INTROSPECT}`;
const STORAGE = code('POST /api/v1/storage');
const API = code(`${API_PREFIX}/…`);
const MCP = code(MCP_PATH);
const PROTECTED = `${API}, ${USERINFO}, ${MCP}`;

type ErrorConfig = Pick<Config, 'registrationBodyLimit' | 'rateLimits' | 'storageQuotaBytes' | 'maxRegisteredClients'>;

const perMinute = (max: number, what: string, env: string) => (max > 0 ? `More than ${max} ${what} per minute from one address (${env}).` : `Never on this server: the limit is off (${env}=0).`);

function errorCases(config: ErrorConfig): Record<ErrorCode, ErrorCase[]> {
  return {
    invalid_request: [
      { where: 'any', when: 'A required parameter is missing, given twice, too long or malformed (for example a code_verifier that is not 43 to 128 unreserved characters).' },
      { where: `POST ${API}`, when: 'The Idempotency-Key header is not 1 to 255 printable ASCII characters, or is sent twice.' },
      { where: CLIENT_AUTH, when: 'The body is not `application/x-www-form-urlencoded` (a JSON body is refused).' },
      { status: 415, where: 'any', when: `The body's Content-Type cannot be parsed, or at ${REGISTER} is not \`application/json\`.` },
      { status: 413, where: 'any', when: `The body is too large (${REGISTER}: ${config.registrationBodyLimit} bytes).` },
      {
        status: 413,
        where: STORAGE,
        when: `The upload would take the school's stored files past the storage quota (STORAGE_QUOTA_BYTES, ${config.storageQuotaBytes} bytes); the description says how much is used. Deleting files frees room.`,
      },
      {
        status: 'redirect',
        where: AUTHORIZE,
        when: 'Once client_id and redirect_uri are trusted: response_type, code_challenge or code_challenge_method (must be S256) missing or malformed; bad prompt or max_age.',
      },
      { status: 400, note: 'HTML page, never redirected', where: AUTHORIZE, when: 'client_id or redirect_uri missing, or redirect_uri not matching a registered one.' },
      { where: REVOKE, when: 'The token was issued to another client.' },
      { where: PROTECTED, when: 'An access_token in the query string or form body (only the Authorization header is accepted).' },
      { status: 401, note: 'no WWW-Authenticate', where: PROTECTED, when: 'No Authorization header on an operation that has no anonymous view.' },
    ],
    invalid_client: [
      { where: CLIENT_AUTH, when: 'client_id missing or unknown; client_secret missing or wrong for a client_secret_post client; a client_secret sent by a public client.' },
      { note: 'with `WWW-Authenticate: Basic`', where: CLIENT_AUTH, when: 'HTTP Basic client authentication was tried (not supported).' },
      { status: 400, note: 'HTML page, never redirected', where: AUTHORIZE, when: 'No client is registered with this client_id.' },
    ],
    invalid_grant: [
      {
        where: TOKEN,
        when: 'authorization_code: the code is unknown, expired, already used (the tokens it gave are revoked), issued to another client, or redirect_uri / code_verifier do not match.',
      },
      {
        where: TOKEN,
        when: 'refresh_token: the token is unknown, revoked, expired, issued to another client, or reused after the grace window (its whole family is revoked); the user no longer exists; the consent the person chose has ended.',
      },
      { where: TOKEN, when: 'device_code: the code is unknown, issued to another client, or was already exchanged for tokens.' },
    ],
    unauthorized_client: [
      { where: TOKEN, when: 'The client did not register this grant_type.' },
      { where: DEVICE, when: 'The client did not register the device_code grant.' },
    ],
    authorization_pending: [{ where: TOKEN, when: 'device_code: the person has not approved or denied the request yet; poll again after `interval` seconds.' }],
    slow_down: [{ where: TOKEN, when: 'device_code: polled sooner than `interval` seconds after the last poll; the interval grows by 5 seconds for this and every later poll.' }],
    expired_token: [{ where: TOKEN, when: 'device_code: the device code expired before it was exchanged; start again at the device authorization endpoint.' }],
    unsupported_grant_type: [{ where: TOKEN, when: `grant_type is not ${orList(AUTHORIZATION_SERVER.grantTypes)}.` }],
    unsupported_response_type: [{ status: 'redirect', where: AUTHORIZE, when: 'response_type is not `code`.' }],
    unsupported_token_type: [{ where: REVOKE, when: 'token_type_hint is neither access_token nor refresh_token.' }],
    invalid_scope: [
      { status: 'redirect', where: AUTHORIZE, when: 'An unknown scope; no scope and none registered; none of the requested scopes is allowed for the user’s role.' },
      { where: DEVICE, when: 'An unknown scope, or no scope and none registered.' },
      { where: TOKEN, when: 'refresh_token: scope asks for more than the original grant, or the user’s role no longer allows any of it.' },
    ],
    invalid_target: [
      { status: 'redirect', where: AUTHORIZE, when: 'resource is not one of Lyceum’s resource identifiers, is repeated, or has a fragment.' },
      { where: TOKEN, when: 'The same, or resource differs from the one the grant is bound to.' },
      { where: DEVICE, when: 'resource is not one of Lyceum’s resource identifiers, or is repeated.' },
    ],
    access_denied: [
      { status: 'redirect', where: AUTHORIZE, when: 'The user pressed Deny on the consent page, or unticked every scope.' },
      { status: 400, where: TOKEN, when: 'device_code: the person pressed Deny on the device page.' },
    ],
    login_required: [{ status: 'redirect', where: AUTHORIZE, when: 'prompt=none but the user must sign in (no session, or it is older than max_age).' }],
    consent_required: [{ status: 'redirect', where: AUTHORIZE, when: 'prompt=none but the user must approve the client (always for public clients).' }],
    invalid_csrf: [
      {
        note: 'HTML page',
        where: 'sign-in, consent, device, disconnect, extend and sign-out forms',
        when: 'The form came from another origin (Sec-Fetch-Site other than same-origin, or an Origin other than the issuer’s, `null` included), or its `_csrf` token is missing or was made for another session.',
      },
    ],
    invalid_redirect_uri: [
      {
        where: REGISTER,
        when: 'redirect_uris missing or empty with the authorization_code grant, more than 10 entries, or no loopback URI left (https, custom schemes and other hosts are refused).',
      },
    ],
    invalid_client_metadata: [
      {
        where: REGISTER,
        when: 'token_endpoint_auth_method, grant_types, response_types, application_type, client_name, the *_uri fields, contacts or id_token_signed_response_alg hold a value Lyceum does not accept.',
      },
    ],
    invalid_token: [
      {
        note: 'with `WWW-Authenticate`',
        where: PROTECTED,
        when: 'The Authorization header is not `Bearer <token>`, or the token is unknown, expired, revoked or bound to another resource (also on operations with an anonymous view).',
      },
    ],
    insufficient_scope: [{ note: 'with `WWW-Authenticate`', where: PROTECTED, when: 'A valid token lacks a scope the operation needs, and the operation has no public view.' }],
    not_found: [{ where: 'any', when: 'No route for this method and path, or no record with this id (a public view also hides unpublished records).' }],
    conflict: [{ where: API, when: 'A unique value is taken, or a record still has records that depend on it.' }],
    idempotency_key_reused: [{ where: `POST ${API}`, when: 'The Idempotency-Key was already used by this caller on this path with a different request body.' }],
    idempotency_key_in_use: [
      {
        note: 'with `Retry-After`',
        where: `POST ${API}`,
        when: `The first request with this Idempotency-Key is still running after the duplicate waited ${IDEMPOTENCY_WAIT_MS / 1000} s for it; retry with the same key to get its answer.`,
      },
    ],
    not_enrolled: [{ where: code(documentedPath(PROGRESS_PATHS.myLessonCompletion)), when: "The signed-in learner's student record is not enrolled in the lesson's course." }],
    access_expired: [
      {
        where: code(documentedPath(PROGRESS_PATHS.myLessonCompletion)),
        when: "The learner's access to the course has ended (the enrollment's access_expires_at has passed); the school extends it with a PATCH of the enrollment.",
      },
    ],
    lesson_not_open: [{ where: code(documentedPath(PROGRESS_PATHS.myLessonCompletion)), when: "The learner's student record is suspended, or the lesson's course is still in draft." }],
    too_many_requests: [
      { where: REGISTER, when: perMinute(config.rateLimits.registerPerMinute, 'registrations', 'RATE_LIMIT_REGISTER_PER_MINUTE') },
      { note: 'with `Retry-After`', where: REGISTER, when: `The server already holds ${config.maxRegisteredClients} registered clients (MAX_REGISTERED_CLIENTS); retry after the delay given.` },
      { where: DEVICE, when: perMinute(config.rateLimits.devicePerMinute, 'device authorizations', 'RATE_LIMIT_DEVICE_PER_MINUTE') },
      {
        note: 'HTML page, with `Retry-After`',
        where: 'device page',
        when: `Too many wrong codes from one account or one address: the ${AUTHORIZATION_SERVER.deviceFlow.wrongCodes.perAccount.free}th wrong code in a row from an account (the ${AUTHORIZATION_SERVER.deviceFlow.wrongCodes.perAddress.free}th from an address) starts a wait that doubles with each further one.`,
      },
      { note: 'HTML page', where: 'sign-in form', when: perMinute(config.rateLimits.signInPerMinute, 'sign-in attempts', 'RATE_LIMIT_SIGN_IN_PER_MINUTE') },
      {
        note: 'with `Retry-After`',
        where: STORAGE,
        when:
          config.rateLimits.uploadPerMinute > 0
            ? `More than ${config.rateLimits.uploadPerMinute} uploads per minute with one access token (RATE_LIMIT_UPLOAD_PER_MINUTE).`
            : 'Never on this server: the limit is off (RATE_LIMIT_UPLOAD_PER_MINUTE=0).',
      },
      {
        where: MCP,
        when:
          config.rateLimits.mcpPerMinute > 0
            ? `More than ${config.rateLimits.mcpPerMinute} requests per minute from one client: one access token, or one address for anonymous callers (RATE_LIMIT_MCP_PER_MINUTE).`
            : 'Never on this server: the limit is off (RATE_LIMIT_MCP_PER_MINUTE=0).',
      },
    ],
    server_error: [{ where: 'any', when: 'An unexpected failure; the detail stays in the server log.' }],
    temporarily_unavailable: [
      {
        note: 'with `Retry-After`; an HTML page on browser pages',
        where: 'any',
        when: 'The database is unreachable, refused a connection, was locked by another process (SQLite), or did not answer within its bounds; nothing was changed: retry after the delay given.',
      },
    ],
  };
}

/** The error table of /auth.md: one row per case, statuses from the error registry. */
export function errorTable(config: ErrorConfig): string {
  const rows: string[][] = [];
  for (const [c, cases] of Object.entries(errorCases(config)) as [ErrorCode, ErrorCase[]][]) {
    for (const k of cases) {
      const status = k.status === 'redirect' ? 'redirect to redirect_uri' : String(k.status ?? STATUS[c]);
      rows.push([code(c), k.note ? `${status} (${k.note})` : status, k.where, k.when]);
    }
  }
  return table(['error', 'HTTP status', 'Where', 'When'], rows);
}
