import { z } from 'zod';
import { documented } from '../http/routes/route-docs.ts';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Deps } from '../deps.ts';
import { declarePublicRoute } from '../http/routes/operation.ts';
import { RecordService } from '../platform/records.ts';
import { authMarkdown } from './auth-md/index.ts';
import { llmsText } from './llms-txt.ts';
import { DOCUMENT_PATHS } from './paths.ts';
import { pricingMarkdown } from './pricing-md.ts';
import { schoolProfile } from './school.ts';

const MARKDOWN = 'text/markdown; charset=utf-8';
const TEXT = 'text/plain; charset=utf-8';

/** OpenAPI description of a text document route. */
const documentSchema = (summary: string, description: string, mediaType: string) => ({
  tags: ['discovery'],
  summary,
  description,
  produces: [mediaType.split(';')[0]!],
  response: { 200: documented(z.string(), summary) },
});

/**
 * Documents are built on every request: they read the live configuration and
 * data, so caches must check back (no-cache) rather than keep a stale copy.
 */
function send(reply: FastifyReply, type: string, body: string): FastifyReply {
  return reply.header('cache-control', 'no-cache').type(type).send(body);
}

/** The methods of `path`'s operations in the OpenAPI document the route declarations build. */
function documentedMethods(app: FastifyInstance, path: string): string[] {
  const paths = (app.swagger() as { paths?: Record<string, Record<string, unknown>> }).paths ?? {};
  return Object.keys(paths[path] ?? {}).map((method) => method.toUpperCase());
}

/** /auth.md as its route serves it: the MCP server serves the same text as a resource. */
export function authDocument(app: FastifyInstance, deps: Deps): () => string {
  return () => authMarkdown(deps.config, (path) => documentedMethods(app, path));
}

/** /auth.md, /llms.txt and /pricing.md: generated from the registries and live data. */
export function registerDocumentRoutes(app: FastifyInstance, deps: Deps): void {
  const records = new RecordService(deps);
  const auth = authDocument(app, deps);
  // Rendered once at start: a template that names something the view lacks stops the server here, not on a reader's
  // request. The check needs the template and the view, not the OpenAPI document the methods are read from: building
  // that at every start would cost each instance (and each test server) the conversion of every route's schema.
  app.addHook('onReady', async () => void authMarkdown(deps.config, () => []));

  declarePublicRoute(
    app,
    {
      method: 'GET',
      path: DOCUMENT_PATHS.auth,
      operationId: 'getAuthMarkdown',
      schema: documentSchema(
        'Authentication walkthrough',
        'OAuth 2.0 and OpenID Connect for this server as Markdown: endpoints, scopes, roles, a curl walkthrough, lifetimes, errors and the decisions the contract leaves open.',
        MARKDOWN,
      ),
    },
    async (_request, reply) => send(reply, MARKDOWN, auth()),
  );

  declarePublicRoute(
    app,
    {
      method: 'GET',
      path: DOCUMENT_PATHS.llms,
      operationId: 'getLlmsText',
      schema: documentSchema('Index for AI agents', 'llms.txt (https://llmstxt.org/): the school, then links to the documentation, the MCP server and the public catalog.', TEXT),
    },
    async (_request, reply) => send(reply, TEXT, llmsText(deps.config.issuer, await schoolProfile(deps))),
  );

  declarePublicRoute(
    app,
    {
      method: 'GET',
      path: DOCUMENT_PATHS.pricing,
      operationId: 'getPricingMarkdown',
      schema: documentSchema(
        'Pricing',
        'What the school sells, as Markdown, from the live catalog: published courses, membership plans and digital products, and upcoming events, with prices in the school currency.',
        MARKDOWN,
      ),
    },
    async (_request, reply) => send(reply, MARKDOWN, await pricingMarkdown(deps, records)),
  );
}
