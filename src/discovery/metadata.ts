import { USERINFO_CLAIMS as CLAIM_SCHEMA } from '../oidc/userinfo-schema.ts';
import { ENDPOINTS } from '../oauth/endpoints.ts';
import { DOCUMENT_PATHS } from './paths.ts';
import { SCOPE_NAMES } from '../access/scopes.ts';
import { AUTHORIZATION_SERVER as AS } from '../util/authorization-server.ts';
import { TOOL_SCOPES } from '../mcp/tools/index.ts';
import { resourceIdentifier, type ResourceName } from '../resource/protected-resources.ts';

export const ID_TOKEN_CLAIMS = ['iss', 'sub', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'at_hash'];
export const USERINFO_CLAIMS = Object.keys(CLAIM_SCHEMA.shape);

/**
 * RFC 8414 §2 authorization server metadata. The same object is served as the
 * OpenID Connect discovery document (OIDC Discovery §3): one set of facts,
 * built from the registries the routes use (the capabilities from
 * util/authorization-server.ts), so the two can never disagree.
 */
export function authorizationServerMetadata(issuer: string) {
  const url = (path: string) => issuer + path;
  return {
    issuer,
    authorization_endpoint: url(ENDPOINTS.authorization),
    token_endpoint: url(ENDPOINTS.token),
    // RFC 8628 §4: where the device grant starts.
    device_authorization_endpoint: url(ENDPOINTS.deviceAuthorization),
    registration_endpoint: url(ENDPOINTS.registration),
    revocation_endpoint: url(ENDPOINTS.revocation),
    introspection_endpoint: url(ENDPOINTS.introspection),
    userinfo_endpoint: url(ENDPOINTS.userinfo),
    jwks_uri: url(ENDPOINTS.jwks),
    scopes_supported: [...SCOPE_NAMES],
    response_types_supported: [...AS.responseTypes],
    response_modes_supported: [...AS.responseModes],
    grant_types_supported: [...AS.grantTypes],
    code_challenge_methods_supported: [...AS.pkceMethods],
    token_endpoint_auth_methods_supported: [...AS.clientAuthMethods],
    revocation_endpoint_auth_methods_supported: [...AS.clientAuthMethods],
    introspection_endpoint_auth_methods_supported: [...AS.clientAuthMethods],
    authorization_response_iss_parameter_supported: true,
    subject_types_supported: [...AS.subjectTypes],
    id_token_signing_alg_values_supported: [...AS.signingAlgs],
    claims_supported: [...new Set([...ID_TOKEN_CLAIMS, ...USERINFO_CLAIMS])],
    claims_parameter_supported: false,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
    prompt_values_supported: [...AS.promptValues],
    client_id_metadata_document_supported: AS.clientIdMetadataDocuments,
    service_documentation: url(DOCUMENT_PATHS.auth),
  };
}

const RESOURCE_NAMES: Record<ResourceName, string> = {
  api: 'Lyceum API',
  mcp: 'Lyceum MCP server',
};

/**
 * RFC 9728 §2 protected resource metadata. `resource` equals the identifier
 * tokens are bound to; `authorization_servers[0]` is the issuer, byte for byte.
 * The API lists every scope of the contract; the MCP endpoint lists only the
 * scopes its tools declare (clients ask for every scope a PRM lists).
 */
export function protectedResourceMetadata(issuer: string, name: ResourceName) {
  const scopes = name === 'api' ? [...SCOPE_NAMES] : [...TOOL_SCOPES];
  return {
    resource: resourceIdentifier(issuer, name),
    authorization_servers: [issuer],
    ...(scopes.length > 0 ? { scopes_supported: scopes } : {}),
    bearer_methods_supported: ['header'],
    resource_name: RESOURCE_NAMES[name],
    resource_documentation: issuer + DOCUMENT_PATHS.auth,
  };
}
