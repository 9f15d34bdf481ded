import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Deps } from './deps.ts';
import { BODY_LIMIT_BYTES } from './http/requests/body-limits.ts';
import { errorSender, registerErrorHandling } from './http/errors/error-handler.ts';
import { registerCors } from './http/requests/cors.ts';
import type { PathSet } from './http/requests/path-set.ts';
import { rejectNulCharacters } from './http/requests/reject-nul.ts';
import { registerSecurityHeaders } from './http/requests/security-headers.ts';
import { skipAbandonedRequests } from './http/requests/client-gone.ts';
import { setRequestValidation } from './http/requests/validators.ts';
import { registerRateLimit } from './http/requests/rate-limit.ts';
import { OneLinePerRequest } from './http/logging/request-log.ts';
import { appLogger, quietPublicDocuments } from './http/logging/logger.ts';
import { requestLogger } from './http/logging/request-logger.ts';
import { registerRegistrationRoute } from './oauth/clients/register-route.ts';
import { ENDPOINTS } from './oauth/endpoints.ts';
import { registerDiscoveryRoutes } from './discovery/routes.ts';
import { registerIntrospectionRoute } from './oauth/introspection.ts';
import { registerRevocationRoute } from './oauth/revocation.ts';
import { registerUserinfoRoute } from './oidc/userinfo.ts';
import { registerTokenRoute } from './oauth/token-endpoint/route.ts';
import { registerDeviceAuthorizationRoute } from './oauth/device/authorization-route.ts';
import { openApiOptions } from './discovery/openapi.ts';
import { authDocument, registerDocumentRoutes } from './discovery/documents.ts';
import { DOCUMENT_PATHS } from './discovery/paths.ts';
import { registerPlatformRoutes } from './platform/routes/index.ts';
import { MCP_PATH } from './mcp/path.ts';
import { registerMcpRoutes } from './mcp/route.ts';
import { RecordService } from './platform/records.ts';
import { registerAssets } from './web/assets.ts';
import { registerConnectedApps } from './web/connected-apps.ts';
import { registerHome } from './discovery/home/routes.ts';
import { registerInteraction } from './web/interaction/index.ts';
import { httpErrorPage } from './web/pages/error.ts';
import { registerCsrf } from './web/csrf.ts';
import { OPS_PATHS, Readiness, registerHealthRoutes } from './ops/health.ts';
import { closeConnectionsWhenStopping } from './ops/stopping-connections.ts';
import type { AppMetrics } from './ops/metrics.ts';

/** Paths browser-based clients call cross-origin; no cookies are used on them. */
const CORS_PATHS: PathSet = {
  exact: [MCP_PATH, ENDPOINTS.registration, ENDPOINTS.token, ENDPOINTS.revocation, ENDPOINTS.introspection, ENDPOINTS.userinfo],
  prefixes: ['/.well-known/'],
};

/**
 * Public documents and the health checks a load balancer sends every few seconds: in the access
 * log at LOG_LEVEL=info, only when they fail (see quietPublicDocuments).
 */
const PUBLIC_DOCUMENTS: PathSet = {
  exact: [DOCUMENT_PATHS.auth, DOCUMENT_PATHS.llms, DOCUMENT_PATHS.pricing, DOCUMENT_PATHS.openapi, OPS_PATHS.health, OPS_PATHS.ready],
  prefixes: ['/.well-known/', '/assets/'],
};

/** TRUST_PROXY=<n>: trust the n proxies nearest to this server. */
const hopCount = (n: number) => (_address: string, hop: number) => hop < n;

/** What the server that runs the app keeps a hand on: readiness (to mark it stopping) and the metrics, when on. */
export interface Operations {
  readiness: Readiness;
  /** Present when METRICS_PORT is set; the server starts its listener. */
  metrics?: AppMetrics;
}

/**
 * Builds the whole application from its dependencies: infrastructure plugins,
 * then routes. No listening, no config reading: main.ts does that.
 */
export async function buildApp(deps: Deps, ops: Operations = { readiness: new Readiness(deps.store, deps.config.readyTimeoutMs) }): Promise<FastifyInstance> {
  const logger = appLogger(deps.config.logLevel);
  const sendError = errorSender(httpErrorPage, deps.store.fault);
  const app = Fastify({
    logger: logger.options,
    logController: new OneLinePerRequest(deps.config.accessLog),
    childLoggerFactory: requestLogger,
    trustProxy: typeof deps.config.trustProxy === 'number' ? hopCount(deps.config.trustProxy) : deps.config.trustProxy,
    bodyLimit: BODY_LIMIT_BYTES,
    // Unknown query/body shapes are ours to judge, with OAuth errors rather than framework ones.
    routerOptions: { maxParamLength: 500 },
    // Errors the router raises before any route (bad URL encoding, over-long parameters) get the same error shape.
    frameworkErrors: (err, request, reply) => sendError(request, reply, err),
    // A request that arrives while the app closes is served (with Connection: close) rather than given
    // the framework's own 503 body: the store stays open until every connection has ended.
    return503OnClosing: false,
  });
  app.addHook('onClose', logger.close);
  rejectNulCharacters(app);
  setRequestValidation(app);

  registerErrorHandling(app, sendError);
  // First, so that every response is counted, those the plugins below answer included.
  ops.metrics?.instrument(app, deps.store.fault);
  // Response schemas document the API (/openapi.json); bodies are serialized as they are.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  await app.register(swagger, openApiOptions(deps.config.issuer));
  await app.register(formbody, { bodyLimit: BODY_LIMIT_BYTES });
  await registerRateLimit(app, deps.config, ops.metrics?.rateLimited);
  await app.register(cookie);
  await registerCsrf(app, deps.config);
  registerSecurityHeaders(app, deps.config.secureCookies);
  skipAbandonedRequests(app);
  await registerCors(app, CORS_PATHS);
  quietPublicDocuments(app, deps.config, PUBLIC_DOCUMENTS);

  closeConnectionsWhenStopping(app, ops.readiness);
  registerHealthRoutes(app, ops.readiness);
  registerAssets(app);
  registerHome(app, deps);
  registerRegistrationRoute(app, deps);
  registerInteraction(app, deps);
  registerConnectedApps(app, deps);
  registerTokenRoute(app, deps);
  registerDeviceAuthorizationRoute(app, deps);
  registerRevocationRoute(app, deps);
  registerIntrospectionRoute(app, deps);
  registerUserinfoRoute(app, deps);
  registerDiscoveryRoutes(app, deps, deps.keys);
  registerPlatformRoutes(app, deps);
  registerDocumentRoutes(app, deps);
  // The MCP resources serve /openapi.json and /auth.md as these routes build them.
  registerMcpRoutes(app, deps, new RecordService(deps), {
    openapi: { path: DOCUMENT_PATHS.openapi, read: () => JSON.stringify(app.swagger()) },
    auth: { path: DOCUMENT_PATHS.auth, read: authDocument(app, deps) },
  });
  app.get(DOCUMENT_PATHS.openapi, { schema: { hide: true } }, async () => app.swagger());
  return app;
}
