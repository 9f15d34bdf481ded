import type { Config } from '../../config/index.ts';
import { CONSENT_DURATIONS, DEFAULT_CONSENT_DURATION } from '../../access/consent.ts';
import { OPENAPI_VERSION } from '../../http/routes/route-docs.ts';
import { defaultText, SETTINGS, type SettingName } from '../../config/defaults.ts';
import { ENDPOINTS } from '../../oauth/endpoints.ts';
import { resourcesFor } from '../../oauth/resources.ts';
import { PREFIX } from '../../oauth/issued-tokens/secrets.ts';
import { ROLE_SCOPES, ROLES } from '../../access/roles.ts';
import { SCOPE_NAMES, SCOPES } from '../../access/scopes.ts';
import { ROLE_CLAIM } from '../../oidc/userinfo-schema.ts';
import { insufficientScope, invalidToken, type GuardContext } from '../../resource/guard.ts';
import { PRM_PATHS } from '../../resource/protected-resources.ts';
import type { Store } from '../../store/types.ts';
import { RATE_LIMIT_WINDOW_SECONDS } from '../../http/requests/rate-limit.ts';
import { IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENCY_WAIT_MS, REPLAYED_HEADER } from '../../platform/idempotency.ts';
import { API_PREFIX } from '../../platform/routes/paths.ts';
import { ANSWER_MAX_CHARS } from '../../mcp/answer-limit.ts';
import { boundToLoopback } from '../../mcp/dns-rebinding.ts';
import { RESOURCE_URIS } from '../../mcp/resources.ts';
import { LIST_DEFAULT, LIST_MAX } from '../../mcp/tools/records.ts';
import { AUTHORIZATION_SERVER as AS, DEVICE_CODE_GRANT } from '../../util/authorization-server.ts';
import { code, duration, joinList, table } from '../markdown.ts';
import { ID_TOKEN_CLAIMS, USERINFO_CLAIMS } from '../metadata.ts';
import { DOCUMENT_PATHS, METADATA_PATHS } from '../paths.ts';
import { loadTemplate } from '../template.ts';
import { errorTable } from './errors.ts';
import { limitsTable } from './limits.ts';
import { mcpPathView } from './mcp-path.ts';
import { walkthroughView } from './walkthrough.ts';
import { webhooksView } from './webhooks.ts';

/** The purpose of every OAuth/OIDC endpoint; keyed by the registry so none is left out. */
const ENDPOINT_DOCS: Record<keyof typeof ENDPOINTS, string> = {
  registration: 'Dynamic client registration (RFC 7591), JSON body',
  authorization: 'Authorization endpoint: open it in the user’s browser',
  token: 'Token endpoint: code exchange, device code polling and refresh, form body',
  deviceAuthorization: 'Device authorization (RFC 8628): a device without a browser starts a sign-in, form body',
  deviceVerification: 'The page where a person types the code a device shows (`verification_uri`), in a browser',
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
  [DOCUMENT_PATHS.openapi, `OpenAPI ${OPENAPI_VERSION} description, with the scopes of every operation`, 'GET'],
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

function endpointsTable(issuer: string, methodsOf: MethodsOf): string {
  const row = (path: string, purpose: string, method?: string) => [purpose, method ?? methodsOf(path).join(', '), code(issuer + path)];
  const rows = (Object.keys(ENDPOINT_DOCS) as (keyof typeof ENDPOINTS)[]).map((k) => row(ENDPOINTS[k], ENDPOINT_DOCS[k]));
  return table(['Purpose', 'Method', 'URL'], [...rows, ...DISCOVERY_DOCS.map(([path, purpose, method]) => row(path, purpose, method))]);
}

function rolesTable(): string {
  const describe = (scopes: readonly string[]) => {
    if (scopes.length === SCOPE_NAMES.length) return `all ${SCOPE_NAMES.length} scopes`;
    const missing = SCOPE_NAMES.filter((s) => !scopes.includes(s));
    if (missing.length <= 3) return `all except ${missing.map(code).join(', ')}`;
    return scopes.map(code).join(' ');
  };
  return table(
    ['Role', 'May be granted'],
    ROLES.map((role) => [code(role), describe(ROLE_SCOPES[role])]),
  );
}

function lifetimesTable(config: Config): string {
  const row = (what: string, seconds: number, env: SettingName) => [what, duration(seconds), `${code(env)} (default ${defaultText(setting(env))})`];
  return table(
    ['What', 'Lifetime on this server', 'Setting'],
    [
      row('Authorization code (single use)', config.codeTtl, 'CODE_TTL_SECONDS'),
      row('Access token (`expires_in`)', config.accessTokenTtl, 'ACCESS_TOKEN_TTL_SECONDS'),
      row('Refresh token, counted from its issue; every rotation starts a new one', config.refreshTokenTtl, 'REFRESH_TOKEN_TTL_SECONDS'),
      row('Grace window for a replayed refresh token', config.refreshGrace, 'REFRESH_GRACE_SECONDS'),
      row('ID token', config.idTokenTtl, 'ID_TOKEN_TTL_SECONDS'),
      row('Browser sign-in session', config.sessionTtl, 'SESSION_TTL_SECONDS'),
    ],
  );
}

function claimsTable(): string {
  const rows = USERINFO_CLAIMS.map((claim) => {
    const [scope, meaning] = CLAIM_DOCS[claim] ?? ['openid', 'See OpenID Connect Core §5.1'];
    return [code(claim), code(scope), meaning];
  });
  return table(['Claim', 'Scope', 'Meaning'], rows);
}

/** An example client document: the fields a Client ID Metadata Document needs. */
const CLIENT_DOCUMENT_EXAMPLE = {
  client_id: 'https://app.example/oauth/client.json',
  client_name: 'Example CLI',
  redirect_uris: ['http://localhost/callback', 'http://127.0.0.1/callback'],
  grant_types: [...AS.grantTypes],
  response_types: [...AS.responseTypes],
  token_endpoint_auth_method: 'none',
};

/** Grant types of the OAuth registry, as "Not supported" names them; the ones the capability object lists are left out. */
const OTHER_GRANT_TYPES: Record<string, string> = {
  implicit: 'Implicit',
  password: 'password',
  client_credentials: 'client credentials',
  'urn:ietf:params:oauth:grant-type:device_code': 'device',
};

/** Everything template.md names, from the declarations and this server's configuration. */
function view(config: Config, methodsOf: MethodsOf) {
  const issuer = config.issuer;
  const resources = resourcesFor(issuer);
  const urls = {
    authorizationServer: issuer + METADATA_PATHS.authorizationServer,
    prmApi: issuer + PRM_PATHS.api,
    prmMcp: issuer + PRM_PATHS.mcp,
    mcp: issuer + DOCUMENT_PATHS.mcp,
    registration: issuer + ENDPOINTS.registration,
    authorization: issuer + ENDPOINTS.authorization,
    token: issuer + ENDPOINTS.token,
  };
  // The guard builds challenges from the issuer alone; these are the exact headers it sends.
  const guard = { issuer, now: 0, store: undefined as unknown as Store } satisfies GuardContext;
  const webhooks = webhooksView(config);
  return {
    issuer,
    origin: new URL(issuer).origin,
    host: new URL(issuer).host,
    config,
    as: AS,
    urls,
    resources,
    paths: { ...ENDPOINTS, api: API_PREFIX, mcp: DOCUMENT_PATHS.mcp },
    tables: {
      endpoints: endpointsTable(issuer, methodsOf),
      scopes: table(
        ['Scope', 'Grants', 'Shown on the consent page as'],
        SCOPES.map(([name, grants, plain]) => [code(name), grants, plain]),
      ),
      roles: rolesTable(),
      lifetimes: lifetimesTable(config),
      claims: claimsTable(),
      webhookEvents: webhooks.events,
      errors: errorTable(config),
      limits: limitsTable(config),
    },
    scopeCount: SCOPES.length,
    walkthrough: walkthroughView(issuer),
    consentDurations: joinList(
      CONSENT_DURATIONS.map((d) => `${d.prose} (\`${d.id}\`)`),
      ', ',
      ' or ',
    ),
    defaultConsentDuration: CONSENT_DURATIONS.find((d) => d.id === DEFAULT_CONSENT_DURATION)!.prose,
    deviceFlow: { ...AS.deviceFlow, grant: DEVICE_CODE_GRANT, registration: { client_name: 'My remote CLI', grant_types: [DEVICE_CODE_GRANT, 'refresh_token'] } },
    clientDocuments: { example: JSON.stringify(CLIENT_DOCUMENT_EXAMPLE, null, 2) },
    confidentialAuthMethods: AS.clientAuthMethods.filter((m) => m !== 'none'),
    defaultAuthMethod: AS.clientAuthMethods[0],
    defaultApplicationType: AS.applicationTypes[0],
    otherApplicationTypes: AS.applicationTypes.slice(1),
    defaultSigningAlg: AS.signingAlgs[0],
    otherSigningAlgs: AS.signingAlgs.slice(1),
    mcpPath: mcpPathView(issuer, urls.mcp),
    challenges: {
      invalidToken: invalidToken(guard, 'api', 'The access token has expired').headers['www-authenticate'],
      insufficientScope: insufficientScope(guard, 'api', ['courses:write']).headers['www-authenticate'],
    },
    idTokenClaims: ID_TOKEN_CLAIMS,
    webhooks,
    limits: { sharedByRedis: Boolean(config.redisUrl), window: RATE_LIMIT_WINDOW_SECONDS },
    idempotency: { post: `POST ${API_PREFIX}/…`, keyMaxLength: IDEMPOTENCY_KEY_MAX_LENGTH, waitMs: IDEMPOTENCY_WAIT_MS, replayedHeader: REPLAYED_HEADER },
    mcp: {
      loopbackOnly: boundToLoopback(config.host),
      schoolPath: `${API_PREFIX}/school`,
      listMax: LIST_MAX,
      listDefault: LIST_DEFAULT,
      answerMaxChars: ANSWER_MAX_CHARS,
      resources: {
        schema: RESOURCE_URIS.schema('{area}'),
        openapi: RESOURCE_URIS.openapi,
        openapiPart: RESOURCE_URIS.openapiPartTemplate,
        auth: RESOURCE_URIS.auth,
        course: RESOURCE_URIS.courseTemplate,
      },
    },
    unsupportedGrants: joinList(Object.entries(OTHER_GRANT_TYPES).flatMap(([type, name]) => ((AS.grantTypes as readonly string[]).includes(type) ? [] : [name]))),
    roleClaim: ROLE_CLAIM,
    prefixes: PREFIX,
  };
}

const render = loadTemplate<ReturnType<typeof view>>('auth-md-template');

/**
 * /auth.md: the authentication walkthrough. Its prose is template.md; the
 * endpoints, scopes, roles, errors, limits and every figure come from the
 * declarations and the live configuration, so what it says is what the
 * server does.
 */
export function authMarkdown(config: Config, methodsOf: MethodsOf): string {
  return render(view(config, methodsOf));
}
