import type { Config } from '../config/index.ts';
import { ANSWER_MAX_CHARS } from '../mcp/answer-limit.ts';
import { boundToLoopback } from '../mcp/dns-rebinding.ts';
import { MCP_PATH } from '../mcp/path.ts';
import { RESOURCE_URIS } from '../mcp/resources.ts';
import { LIST_DEFAULT, LIST_MAX } from '../mcp/tools/records.ts';
import { ENDPOINTS } from '../oauth/endpoints.ts';
import { resourcesFor } from '../oauth/resources.ts';
import { PREFIX } from '../oauth/issued-tokens/secrets.ts';
import { API_PREFIX } from '../platform/routes/paths.ts';
import { ROLE_CLAIM } from '../oidc/userinfo.ts';
import { AUTHORIZATION_SERVER } from '../util/authorization-server.ts';
import { bullets, code, duration } from './markdown.ts';

const AS = AUTHORIZATION_SERVER;
const ticks = (values: readonly string[]) => values.map((v) => `\`${v}\``);

/**
 * The choices Lyceum's code makes where its published interface says nothing,
 * grouped by endpoint. Values come from the live configuration.
 */
export function decisions(config: Config): string {
  const r = resourcesFor(config.issuer);
  const groups: [string, string[]][] = [
    [
      'Registration',
      [
        `Defaults for absent fields: \`token_endpoint_auth_method\` \`${AS.clientAuthMethods[0]}\`, \`grant_types\` \`${JSON.stringify(AS.grantTypes)}\`, \`response_types\` \`${JSON.stringify(AS.responseTypes)}\`, \`application_type\` \`${AS.applicationTypes[0]}\`. \`application_type\` ${ticks(AS.applicationTypes.slice(1)).join(', ')} is accepted but changes nothing: the loopback rules apply to every client.`,
        `The body must be \`application/json\` (else 415 \`invalid_request\`), so no plain HTML form on another site can register clients. Largest body: ${config.registrationBodyLimit} bytes.`,
        config.rateLimits.registerPerMinute > 0
          ? `At most ${config.rateLimits.registerPerMinute} registrations per client address per minute (RATE_LIMIT_REGISTER_PER_MINUTE); more get 429 \`too_many_requests\`. Register once and keep the client_id.`
          : 'Registration is not rate limited on this server (RATE_LIMIT_REGISTER_PER_MINUTE=0). Register once and keep the client_id anyway.',
        `At most ${config.maxRegisteredClients} clients are registered at once (MAX_REGISTERED_CLIENTS). Past it, registration answers 429 \`too_many_requests\` with \`Retry-After\` (the purge interval, ${config.purgeInterval} s), not \`invalid_client_metadata\`: nothing is wrong with the metadata, and the condition passes once unused clients are removed.`,
        `A client that has not obtained a token ${duration(config.unusedClientTtl)} after its registration is deleted (UNUSED_CLIENT_TTL_SECONDS); its client_id is then unknown (\`invalid_client\`). Register again, or complete an authorization soon after registering. A client that obtained a token is kept.`,
        'Unknown fields are ignored, not refused; a JSON `null` counts as absent. The answer is 201 with `client_id`, `client_id_issued_at` and the stored metadata, never a `null`.',
        '`client_secret` (with `client_secret_expires_at: 0`, it does not expire) is issued only to `client_secret_post` clients and shown only in this answer; Lyceum keeps its SHA-256.',
        'Unknown scopes in `scope` are dropped; the known ones are echoed in registry order (no `scope` when none is left).',
        'The registered `scope` is not a limit: it is only the default for an authorization request without `scope`. A request may ask for any of the scopes.',
        `A mixed \`redirect_uris\` list keeps only its loopback entries and the answer echoes the kept list (RFC 7591 §3.2.1); duplicates are dropped; at most ${AS.limits.redirectUris} entries.`,
        'There is no client configuration endpoint (RFC 7592): a registration cannot be read back, changed or deleted over HTTP. Register again when in doubt; an operator removes clients with `lyceum clients delete`.',
        'Apps with https or app-scheme callbacks are registered by the school with `lyceum clients add` (see "Clients the school registers"); they do not count against MAX_REGISTERED_CLIENTS and are never purged for being unused.',
        'A client need not register: a `client_id` that is an https URL names its Client ID Metadata Document (see "Clients that name themselves by a URL"). Such a client is not counted against MAX_REGISTERED_CLIENTS.',
      ],
    ],
    [
      'Authorization',
      [
        '`redirect_uri` is always required, even with a single registered URI: a loopback client may use any port, so Lyceum cannot infer it.',
        'An unknown `client_id` or a `redirect_uri` that matches no registered one gets an HTML error page (400), never a redirect. Every other error is redirected with `error`, `error_description`, `state` and `iss`.',
        'An unknown scope in the request is an error (`invalid_scope`), not silently dropped as at registration.',
        'Scopes the user’s role cannot grant are shown on the consent page as withheld and left out of the grant; the token response’s `scope` says what was granted. Nothing grantable: `invalid_scope`.',
        'Public clients get the consent page on every authorization (RFC 8252 §8.6: their identity cannot be verified). A confidential client whose earlier grant covers the request skips it, unless `prompt=consent`.',
        `\`prompt\` accepts ${ticks(AS.promptValues).slice(0, -1).join(', ')} and ${ticks(AS.promptValues).at(-1)}; \`none\` cannot be combined. \`prompt=none\` answers \`login_required\` or \`consent_required\` instead of showing a page, so it never succeeds for a public client.`,
        '`max_age` (seconds): an older sign-in must be repeated; the ID token’s `auth_time` tells when it happened. `max_age=0` asks for a sign-in every time, like `prompt=login`; after it the flow goes on to consent.',
        `\`code_challenge_method\` must be ${ticks(AS.pkceMethods).join(' or ')}; \`plain\` and a missing method are refused. \`state\` may be up to ${AS.limits.stateBytes} bytes (UTF-8; a longer one gets the error page, since the redirect could not carry it back), \`nonce\` up to ${AS.limits.nonce} characters.`,
        `\`resource\`: at most one value, ${code(r.api)} or ${code(r.mcp)} (one trailing slash is tolerated); anything else is \`invalid_target\`.`,
        `A browser sign-in lasts ${duration(config.sessionTtl)} (SESSION_TTL_SECONDS).`,
        'Lyceum’s own forms (sign-in, consent, disconnect, sign-out) accept a POST only from Lyceum’s own origin: `Sec-Fetch-Site: same-origin`, or, without that header, an `Origin` equal to the issuer’s. A post from another origin — another port of the same host included — gets a 403 `invalid_csrf` page and never a redirect. Their `_csrf` token is bound to the browser’s session. An app never posts these forms: it opens the authorization URL in the user’s browser.',
        `Password guessing is slowed per account, from any addresses: after ${config.passwordFailures.free} wrong passwords for one account (at the sign-in form or as \`current_password\` of \`PATCH /api/v1/account\`), each further check waits ${duration(config.passwordFailures.firstDelay)}, doubling up to ${duration(config.passwordFailures.maxDelay)}. During the wait even the right password gets 429 with \`Retry-After\` (the sign-in page says "Too many failed sign-ins for this account. Try again in N seconds."; the API answers \`too_many_requests\`). After the wait the account works again, and a correct password resets the count.`,
      ],
    ],
    [
      'Token endpoint',
      [
        'Form bodies only; a JSON body is `invalid_request`. A parameter given twice is `invalid_request` (RFC 6749 §3.2).',
        'HTTP Basic client authentication is refused: 401 `invalid_client` with `WWW-Authenticate: Basic`. Confidential clients send `client_secret` in the body (`client_secret_post`).',
        '`invalid_client` is always 401. A public client that sends a `client_secret` is refused.',
        'An exchange attempt uses the code up even when it fails (wrong code_verifier or redirect_uri): start a new authorization.',
        'A code presented a second time revokes every token issued from it (RFC 6749 §4.1.2).',
        'A client that did not register `refresh_token` gets no refresh token, and `unauthorized_client` if it tries the grant.',
        'A refresh may send `scope` to narrow the new access token; the new refresh token keeps the original scope, so a later refresh can widen it again up to the original grant. More than the original is `invalid_scope`. The user’s current role is applied again on every refresh.',
        'A refresh may send `resource`: it must name the resource the grant is bound to, or it narrows an unbound grant to one resource.',
        'When the user disconnects an app on /account/apps, its unredeemed codes die with the grant and its refresh tokens stop working: both answer `invalid_grant`. Authorize again.',
        'The ID token is issued only by the authorization_code grant (when `openid` was granted), not on refresh.',
        'Every answer of the token, registration, revocation, introspection and UserInfo endpoints, and every error, carries `Cache-Control: no-store`.',
      ],
    ],
    [
      'Revocation',
      [
        'Clients authenticate as at the token endpoint. `token_type_hint` is optional and not needed to find the token, but an unknown hint is `unsupported_token_type`.',
        'An unknown or already invalid token answers 200 (RFC 7009 §2.2).',
        'A token issued to another client is refused with 400 `invalid_request` and stays valid.',
        'Revoking an access token ends only that access token: the refresh token keeps working. Revoking a refresh token ends its whole family, every access and refresh token of the same authorization.',
      ],
    ],
    [
      'Introspection',
      [
        `POST ${code(ENDPOINTS.introspection)} (RFC 7662), authenticated like the token endpoint. A client sees only its own tokens: any other token, or an expired, revoked or unknown one, is \`{"active": false}\`, not an error.`,
        `Active answers carry \`scope\`, \`client_id\`, \`sub\`, \`exp\`, \`iat\`, \`auth_time\`, \`iss\`, \`token_type\` (\`Bearer\` for access tokens, \`refresh_token\` for refresh tokens) and \`aud\`: the bound resource, or both ${code(r.api)} and ${code(r.mcp)} for an unbound token.`,
        `A rotated refresh token stays active for the ${duration(config.refreshGrace)} grace window (its last millisecond included; a window of 0 s is none) and only until its successor is used, since a replay then still gets the successor back. The token endpoint applies the same rule.`,
      ],
    ],
    [
      'Protected resources',
      [
        'The access token is accepted only in the `Authorization: Bearer` header; `access_token` in the query string or a form body is 400 `invalid_request` (RFC 9700 §2.4).',
        'A request without a token is served as anonymous and never challenged. On an operation with no anonymous view it gets 401 `invalid_request` without `WWW-Authenticate`; the description names the scopes and the metadata URL.',
        'A bad token (malformed, unknown, expired, revoked, bound elsewhere) is 401 `invalid_token` with a challenge even where anonymous callers are served: it is never quietly treated as anonymous.',
        'A valid token without the operation’s scope, on an operation with a public view, is served the public view instead of a 403.',
        '`insufficient_scope` names every scope the operation needs in the challenge’s `scope`.',
        `A token bound to ${code(r.mcp)} is refused by the API and UserInfo, and one bound to ${code(r.api)} by ${code(MCP_PATH)}; an unbound token is accepted by both.`,
      ],
    ],
    [
      'MCP server',
      [
        `Every ${code(MCP_PATH)} answer, anonymous or not, carries \`Cache-Control: no-store\`.`,
        `${code(MCP_PATH)} takes one JSON-RPC message per request: a batch (a JSON array) is refused whole with HTTP 400 and error -32600, and none of its messages runs.`,
        `${code(MCP_PATH)} refuses with 403 (a JSON-RPC error) a request whose \`Origin\` is not ${code(new URL(config.issuer).origin)}${config.mcpAllowedOrigins.length ? ` or ${config.mcpAllowedOrigins.map(code).join(', ')} (MCP_ALLOWED_ORIGINS)` : ' (MCP_ALLOWED_ORIGINS can add others)'}${boundToLoopback(config.host) ? `, and one whose \`Host\` is not ${code(new URL(config.issuer).host)} (the server listens on loopback only)` : ''}: DNS-rebinding protection. Requests without \`Origin\` are served.`,
        `The ${code(MCP_PATH)} rate limit counts per access token, however the \`Authorization\` header spells it (\`Bearer\` in any case, extra spaces); anonymous callers count per address.`,
        `Every tool that can show learners takes \`pseudonymize\` (boolean): \`true\` shows students by stable pseudonyms (\`Student 3F9A0C17B2\`, \`3f9a0c17b2@students.invalid\`) instead of names, emails and notes; ids stay real. The school setting \`mcp_student_pseudonyms\` (PATCH ${code(`${API_PREFIX}/school`)}) makes that the rule for every call, and \`false\` then does not lower it; no agent can turn the setting off (\`update_school_settings\` refuses), only staff through the API. While pseudonymized, searching students by name or email is a tool error, a pseudonym sent back in a write is never stored, and \`create_webhook\` refuses the events that carry learners' names.`,
        `Every area of ${code(API_PREFIX)} is reached by five record tools: \`list_records\` (an \`area\`, \`q\`, equality \`filters\`, \`cursor\`, \`limit\` of at most ${LIST_MAX} with ${LIST_DEFAULT} by default, \`fields\`, and \`detail\` for long text, which lists leave out), \`get_record\` (a prefixed id: \`crs_\` a course, \`stu_\` a student), \`create_record\`, \`update_record\` and \`delete_record\`, each with the REST operation's scope and checks; an unknown argument or field is refused naming the right one. Every write tool takes \`dry_run: true\`: checked as the real write, answered with what would be stored, nothing written. A tool's text is its summary followed by its structured content as JSON; an answer over ${ANSWER_MAX_CHARS} characters is refused, saying how to ask for less.`,
        `Resources (the data model as ${code(RESOURCE_URIS.schema('{area}'))}, the OpenAPI document in parts (the index ${code(RESOURCE_URIS.openapi)}, each part ${code(RESOURCE_URIS.openapiPartTemplate)}), ${code(RESOURCE_URIS.auth)}, published courses as ${code(RESOURCE_URIS.courseTemplate)}), prompts, completion and \`logging/setLevel\` need no token, and a token never shows more through them: every caller reads them as an anonymous one, and a course that is not published is resource not found, error -32602 (the code MCP 2026-07-28 gives it, for every revision).`,
      ],
    ],
    [
      'Identity',
      [
        `UserInfo answers GET and POST and needs \`openid\`. \`preferred_username\` is the local part of the email address; \`${ROLE_CLAIM}\` is an extension claim; \`email_verified\` is always \`false\` because Lyceum does not verify addresses.`,
        `ID tokens are signed with ${AS.signingAlgs[0]} unless the client registered \`id_token_signed_response_alg\` ${ticks(AS.signingAlgs.slice(1)).join(', ')}. Their \`aud\` is the client_id; \`at_hash\` binds the access token; \`nonce\` is echoed when sent. Retired signing keys stay in the JWKS for ${duration(config.idTokenTtl)}.`,
        'A password change (`PATCH /api/v1/account` with `new_password`, or `lyceum users passwd`) signs the user out everywhere: every browser session ends and every access and refresh token of the user is revoked at every client, the token that made the request included. The answer carries `sessions_ended` and `tokens_revoked`; send the user through authorization again.',
        `Credentials are opaque strings with readable prefixes for secret scanners: access tokens \`${PREFIX.access}\`, refresh tokens \`${PREFIX.refresh}\`, codes \`${PREFIX.code}\`, client ids \`${PREFIX.client}\`, client secrets \`${PREFIX.secret}\`. Lyceum stores only their SHA-256.`,
      ],
    ],
  ];
  return groups.map(([title, items]) => `### ${title}\n\n${bullets(items)}`).join('\n\n');
}
