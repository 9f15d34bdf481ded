import type { Config } from '../config/index.ts';
import { defaultText, SETTINGS, type SettingName } from '../config/defaults.ts';
import { ENDPOINTS } from '../oauth/endpoints.ts';
import { resourcesFor } from '../oauth/resources.ts';
import { ROLE_SCOPES, ROLES } from '../access/roles.ts';
import { SCOPE_NAMES, SCOPES } from '../access/scopes.ts';
import { ROLE_CLAIM } from '../oidc/userinfo.ts';
import { insufficientScope, invalidToken, type GuardContext } from '../resource/guard.ts';
import { PRM_PATHS } from '../resource/protected-resources.ts';
import type { Store } from '../store/types.ts';
import { decisions } from './auth-md-decisions.ts';
import { clientDocumentsSection } from './auth-md-client-documents.ts';
import { errorTable } from './auth-md-errors.ts';
import { limitsSection } from './auth-md-limits.ts';
import { idempotencySection } from './auth-md-idempotency.ts';
import { walkthrough, WALKTHROUGH } from './auth-md-walkthrough.ts';
import { webhooksSection } from './auth-md-webhooks.ts';
import { bullets, code, duration, fence, table } from './markdown.ts';
import { AUTHORIZATION_SERVER } from '../util/authorization-server.ts';
import { ID_TOKEN_CLAIMS, USERINFO_CLAIMS } from './metadata.ts';
import { mcpPathSection } from './auth-md-mcp-path.ts';
import { operatorClientsSection } from './auth-md-operator-clients.ts';
import { DOCUMENT_PATHS, METADATA_PATHS } from './paths.ts';

/** The purpose of every OAuth/OIDC endpoint; keyed by the registry so none is left out. */
const ENDPOINT_DOCS: Record<keyof typeof ENDPOINTS, string> = {
  registration: 'Dynamic client registration (RFC 7591), JSON body',
  authorization: 'Authorization endpoint: open it in the user’s browser',
  token: 'Token endpoint: code exchange and refresh, form body',
  revocation: 'Token revocation (RFC 7009), form body',
  introspection: 'Token introspection (RFC 7662), form body',
  userinfo: 'OpenID Connect UserInfo, Bearer token with `openid`',
  jwks: 'Public keys of the ID token signatures (JWKS)',
};

/** The HTTP methods of a path's operations in /openapi.json, which the route declarations produce. */
export type MethodsOf = (path: string) => readonly string[];

/** Documents and other endpoints; `method` only for the two that /openapi.json does not describe. */
const DISCOVERY_DOCS: [path: string, purpose: string, method?: string][] = [
  [METADATA_PATHS.authorizationServer, 'Authorization server metadata (RFC 8414); authoritative if documents disagree'],
  [METADATA_PATHS.openidConfiguration, 'OpenID Connect discovery: the same facts'],
  [PRM_PATHS.api, 'Protected resource metadata (RFC 9728) of the API'],
  [PRM_PATHS.mcp, 'Protected resource metadata (RFC 9728) of the MCP server'],
  [DOCUMENT_PATHS.openapi, 'OpenAPI 3.0 description, with the scopes of every operation', 'GET'],
  [DOCUMENT_PATHS.auth, 'This walkthrough'],
  [DOCUMENT_PATHS.llms, 'Index of the site for AI agents'],
  [DOCUMENT_PATHS.pricing, 'What the school sells, from live data'],
  [DOCUMENT_PATHS.mcp, 'MCP server (Streamable HTTP), anonymous catalog reads', 'POST'],
];

const CLAIM_DOCS: Record<string, [scope: string, meaning: string]> = {
  sub: ['openid', 'Stable user identifier (also the ID token’s `sub`)'],
  name: ['profile', 'Full name'],
  preferred_username: ['profile', 'Local part of the email address'],
  updated_at: ['profile', 'Last change of the account, seconds since the epoch'],
  [ROLE_CLAIM]: ['profile', `Role in the school: ${ROLES.join(', ')}`],
  email: ['email', 'Email address'],
  email_verified: ['email', 'Always `false`: Lyceum does not verify addresses'],
};

/** The row of a setting; the name is checked against the table at compile time. */
const setting = (name: SettingName) => SETTINGS.find((s) => s.name === name)!;

function endpointsSection(issuer: string, methodsOf: MethodsOf): string {
  const row = (path: string, purpose: string, method?: string) => [purpose, method ?? methodsOf(path).join(', '), code(issuer + path)];
  const rows = (Object.keys(ENDPOINT_DOCS) as (keyof typeof ENDPOINTS)[]).map((k) => row(ENDPOINTS[k], ENDPOINT_DOCS[k]));
  return table(['Purpose', 'Method', 'URL'], [...rows, ...DISCOVERY_DOCS.map(([path, purpose, method]) => row(path, purpose, method))]);
}

function scopesSection(): string {
  return [
    `Lyceum has ${SCOPES.length} scopes. Ask for them space-separated in the \`scope\` parameter (URL-encoded as \`%20\`), and only for what the client needs: the user sees each one on the consent page.`,
    table(['Scope', 'Grants', 'Shown on the consent page as'], SCOPES.map(([name, grants, plain]) => [code(name), grants, plain])),
  ].join('\n\n');
}

function rolesSection(): string {
  const describe = (scopes: readonly string[]) => {
    if (scopes.length === SCOPE_NAMES.length) return `all ${SCOPE_NAMES.length} scopes`;
    const missing = SCOPE_NAMES.filter((s) => !scopes.includes(s));
    if (missing.length <= 3) return `all except ${missing.map(code).join(', ')}`;
    return scopes.map(code).join(' ');
  };
  return [
    'Every user has one school role. The scopes granted are the scopes requested ∩ the scopes of the role: the consent page shows the rest as withheld, and the token response’s `scope` says what was really granted (check it). When nothing requested is allowed the answer is `invalid_scope`. The role is applied again at every refresh.',
    table(['Role', 'May be granted'], ROLES.map((role) => [code(role), describe(ROLE_SCOPES[role])])),
  ].join('\n\n');
}

function loopbackSection(config: Config): string {
  const hosts = config.loopbackHosts;
  return bullets([
    `Open registration accepts only loopback redirect URIs (RFC 8252 §7.3): scheme \`http\`, host ${hosts.map(code).join(', ')} (LOOPBACK_HOSTS), any path and query. Example: ${code(`http://127.0.0.1:${WALKTHROUGH.port}/callback`)}.`,
    'The port may be left out at registration. At authorization time any port is accepted for a registered loopback URI, whatever `application_type` says; scheme, host, path and query must match exactly as written (no normalisation: `127.1` is not `127.0.0.1`, `/a/../cb` is not `/cb`).',
    'No fragment, no user information, no white space or backslash.',
    'A registration whose URIs are all non-loopback (`https://…`, custom schemes, other hosts) is refused with 400 `invalid_redirect_uri`; such fixed callbacks need the school to register the app (below).',
    'A mixed list is accepted: the loopback entries are kept, the others dropped, and the response echoes the kept list.',
    'The token request’s `redirect_uri` must equal the authorization request’s, port included.',
  ]);
}

function lifetimesSection(config: Config): string {
  const row = (what: string, seconds: number, env: SettingName) => [what, duration(seconds), `${code(env)} (default ${defaultText(setting(env))})`];
  return [
    table(
      ['What', 'Lifetime on this server', 'Setting'],
      [
        row('Authorization code (single use)', config.codeTtl, 'CODE_TTL_SECONDS'),
        row('Access token (`expires_in`)', config.accessTokenTtl, 'ACCESS_TOKEN_TTL_SECONDS'),
        row('Refresh token, counted from its issue; every rotation starts a new one', config.refreshTokenTtl, 'REFRESH_TOKEN_TTL_SECONDS'),
        row('Grace window for a replayed refresh token', config.refreshGrace, 'REFRESH_GRACE_SECONDS'),
        row('ID token', config.idTokenTtl, 'ID_TOKEN_TTL_SECONDS'),
        row('Browser sign-in session', config.sessionTtl, 'SESSION_TTL_SECONDS'),
      ],
    ),
    '### Refresh rotation and the grace window',
    bullets([
      'Every refresh returns a new refresh token and retires the one presented, atomically. Store the new one before using the new access token.',
      config.refreshGrace > 0
        ? `If the retired refresh token is presented again within ${duration(config.refreshGrace)} of the moment its rotation was committed, its last millisecond included (two workers refreshing at once, or retries that waited on a slow database), and its successor has not been used yet, the answer is the very same successor pair, with \`expires_in\` counting the time already passed. No new tokens are minted.`
        : 'The grace window is 0 on this server: there is none, and a retired refresh token presented again, even in the millisecond of its rotation, is treated as stolen.',
      'Presented after the grace window, or once its successor was itself used, it is treated as stolen: 400 `invalid_grant`, and every token of its family (all access and refresh tokens of that authorization) is revoked. The user must authorize again.',
      'The new refresh token keeps the scope of the original grant even when the refresh asked for a narrower `scope`; only the access token is narrowed.',
    ]),
  ].join('\n\n');
}

function resourcesSection(issuer: string): string {
  const r = resourcesFor(issuer);
  return [
    table(
      ['Resource', 'Identifier (`resource`)', 'Metadata'],
      [
        ['HTTP API (`/api/v1`) and UserInfo', code(r.api), code(issuer + PRM_PATHS.api)],
        ['MCP server', code(r.mcp), code(issuer + PRM_PATHS.mcp)],
      ],
    ),
    bullets([
      'Send `resource` (RFC 8707) on the authorization request to bind the code and its tokens to one resource; a token bound to one is refused by the other (401 `invalid_token`). Without it the token is good for both.',
      'At the token endpoint `resource` may repeat the bound value, or narrow an unbound grant to one resource; a different one is `invalid_target`.',
      'Introspection returns the binding as `aud`.',
    ]),
  ].join('\n\n');
}

function challengeSection(issuer: string): string {
  // The guard builds challenges from the issuer alone; these are the exact headers it sends.
  const ctx = { issuer, now: 0, store: undefined as unknown as Store } satisfies GuardContext;
  const invalid = invalidToken(ctx, 'api', 'The access token has expired').headers['www-authenticate'];
  const scope = insufficientScope(ctx, 'api', ['courses:write']).headers['www-authenticate'];
  return [
    'A request **without** an `Authorization` header is served as anonymous and is never challenged, so a client cannot discover the metadata by provoking a 401: read the well-known documents directly.',
    bullets([
      'Anonymous request to an operation with a public view (catalog lists and records, `/mcp` catalog tools, resources and prompts): served, published records and public fields only.',
      'Anonymous request to a token-only operation: 401 `invalid_request`, **without** `WWW-Authenticate`; the `error_description` names the scopes needed and the metadata URL.',
      'Token without the scope, on an operation with a public view: served the public view, as anonymous would be.',
      'Invalid token (malformed, unknown, expired, revoked, bound to another resource): 401 `invalid_token` with a challenge, also where anonymous callers are served.',
      'Valid token without a required scope on a token-only operation: 403 `insufficient_scope` with a challenge naming every scope the operation needs.',
    ]),
    'Challenges follow RFC 6750 §3 with the RFC 9728 `resource_metadata` parameter, which points at the protected resource metadata of the resource called:',
    fence('http', `HTTP/1.1 401 Unauthorized\nWWW-Authenticate: ${invalid}`),
    fence('http', `HTTP/1.1 403 Forbidden\nWWW-Authenticate: ${scope}`),
    'The JSON body carries the same `error` and `error_description`.',
  ].join('\n\n');
}

function userinfoSection(): string {
  const rows = USERINFO_CLAIMS.map((claim) => {
    const [scope, meaning] = CLAIM_DOCS[claim] ?? ['openid', 'See OpenID Connect Core §5.1'];
    return [code(claim), code(scope), meaning];
  });
  return [
    `GET or POST the UserInfo endpoint with \`Authorization: Bearer <access token>\`; the token needs \`openid\`. The claims returned depend on the scopes granted:`,
    table(['Claim', 'Scope', 'Meaning'], rows),
    `ID tokens (returned by the code exchange when \`openid\` was granted) carry ${ID_TOKEN_CLAIMS.map(code).join(', ')}; \`aud\` is the client_id. Verify them with the keys of the JWKS.`,
  ].join('\n\n');
}

function introspectionSection(): string {
  return bullets([
    `POST ${code(ENDPOINTS.introspection)} with \`token\` and \`client_id\` (plus \`client_secret\` for \`client_secret_post\` clients), form-encoded.`,
    'A client may introspect only the tokens issued to it. Any other token, and every expired, revoked or unknown one, answers `{"active": false}` with status 200.',
    'An active answer has `active`, `scope`, `client_id`, `sub`, `exp`, `iat`, `auth_time`, `iss`, `token_type` (`Bearer` or `refresh_token`) and `aud` (the bound resource, or both resource identifiers).',
    'A rotated refresh token stays active exactly as long as presenting it again would return its successor: inside the grace window and before the successor is used. The token endpoint and introspection apply one rule, so they never disagree.',
  ]);
}

/**
 * /auth.md: the authentication walkthrough, generated from the registries
 * (endpoints, scopes, roles, errors) and the live configuration, so what it
 * says is what the server does.
 */
export function authMarkdown(config: Config, methodsOf: MethodsOf): string {
  const issuer = config.issuer;
  const sections: string[] = [
    '# Lyceum: authentication for CLI tools, apps and agents',
    `> Issuer: ${code(issuer)}. OAuth 2.0 authorization code flow with PKCE (S256), OpenID Connect, open dynamic registration for loopback clients, Client ID Metadata Documents (a \`client_id\` that is the https URL of the client’s own metadata), and apps with https or app-scheme callbacks registered by the school. Requests without a token are served as anonymous and never challenged.`,
    `The authorization server metadata at ${code(issuer + METADATA_PATHS.authorizationServer)} is authoritative if this page and it ever disagree. Every URL below is on the issuer; the issuer is exactly ${code(issuer)}, and it is the \`iss\` of redirects, ID tokens and introspection.`,
    '## Endpoints',
    endpointsSection(issuer, methodsOf),
    '## Flow at a glance',
    bullets([
      'Register once (public client: `token_endpoint_auth_method` `none`; confidential: `client_secret_post`), or skip registration by using the https URL of your metadata document as `client_id` (below).',
      'Send the user’s browser to the authorization endpoint with a PKCE S256 challenge; listen on a loopback port.',
      'Receive `code`, `state` and `iss` on the redirect; check `state`, and that `iss` equals the issuer.',
      'Exchange the code with the `code_verifier` at the token endpoint.',
      'Call the API with `Authorization: Bearer <access token>`.',
      'Refresh with the `refresh_token` grant; revoke when done.',
    ]),
    '## Walkthrough with curl and openssl',
    'Each block runs as written in one shell (bash or zsh), in order; only step 4 needs a person at a browser.',
    walkthrough(issuer, config.codeTtl),
    '## Scopes',
    scopesSection(),
    '## Roles',
    rolesSection(),
    '## Loopback redirect URIs',
    loopbackSection(config),
    '## Clients that name themselves by a URL (Client ID Metadata Documents)',
    clientDocumentsSection(config),
    '## Clients the school registers',
    operatorClientsSection(config),
    '## An MCP agent, from first contact to a tool call',
    mcpPathSection(config),
    '## Token lifetimes',
    lifetimesSection(config),
    '## Resource indicators',
    resourcesSection(issuer),
    '## Anonymous requests and challenges',
    challengeSection(issuer),
    '## UserInfo and ID token',
    userinfoSection(),
    '## Introspection',
    introspectionSection(),
    '## Webhooks',
    webhooksSection(config),
    '## Errors',
    'Error bodies follow RFC 6749 §5.2: `{"error": "<code>", "error_description": "<text>"}` (`application/json`), with `Cache-Control: no-store`. Authorization errors after the client and redirect URI are trusted are sent to the redirect URI as `error`, `error_description`, `state` and `iss` query parameters.',
    errorTable(config),
    '## Limits a client may meet',
    limitsSection(config),
    '## Retrying writes safely',
    idempotencySection(config),
    '## Decisions where the contract is silent',
    decisions(config),
    '## Not supported',
    bullets([
      `Implicit, password, client credentials and device grants; only ${AUTHORIZATION_SERVER.grantTypes.map(code).join(' and ')}.`,
      'HTTP Basic client authentication, `private_key_jwt`, PKCE `plain`, tokens in URLs.',
      'Request objects, the `claims` parameter, pushed authorization requests.',
      'The agent-authentication extension (autonomous identity assertion, service authentication, anonymous claim ceremony): consent is always given interactively at the authorization endpoint.',
    ]),
  ];
  return `${sections.join('\n\n')}\n`;
}
