import { ProtocolError, ResourceNotFoundError, ResourceTemplate, type McpServer } from '@modelcontextprotocol/server';
import { OPENAPI_VERSION } from '../http/routes/route-docs.ts';
import { logError } from '../http/errors/error-handler.ts';
import { HttpError } from '../http/errors/http-error.ts';
import { AREA_LIST, AREAS, type AreaDef } from '../platform/areas.ts';
import { listAll } from '../platform/list-all.ts';
import { INTERNAL_ERROR } from './json-rpc-error.ts';
import { areaJsonSchema } from './json-schema.ts';
import { openApiParts } from './openapi-parts.ts';
import type { ToolContext } from './tool.ts';
import { getCourse } from './tools/course.ts';

/** A document the server also serves over HTTP, built by the same function. */
export interface McpDocument {
  /** Its HTTP path on the issuer. */
  path: string;
  read(): string;
}

/** The documents served as resources; app.ts hands them over (discovery builds them and sits above mcp). */
export interface McpDocuments {
  openapi: McpDocument;
  auth: McpDocument;
}

export const RESOURCE_URIS = {
  openapi: 'lyceum://openapi',
  openapiPartTemplate: 'lyceum://openapi/{part}',
  openapiPart: (name: string) => `lyceum://openapi/${name}`,
  auth: 'lyceum://auth.md',
  schema: (area: string) => `lyceum://schema/${area}`,
  courseTemplate: 'lyceum://courses/{id}',
  course: (id: string) => `lyceum://courses/${id}`,
} as const;

/** resources/list names this many published courses; the template reaches every other one. */
export const LISTED_COURSES = 50;

const JSON_TYPE = 'application/json';

/**
 * The server's resources, all public: every caller reads them as an anonymous
 * one, whatever token it sends, so a resource never shows more than the
 * public catalog and the public documents.
 * - the data model: one JSON Schema per area, from the field declarations;
 * - the OpenAPI document in parts (openapi-parts.ts) and auth.md, as their HTTP routes build them;
 * - each published course, through the template lyceum://courses/{id}.
 */
export function registerResources(server: McpServer, ctx: ToolContext, documents: McpDocuments): void {
  const anonymous: ToolContext = { ...ctx, caller: { kind: 'anonymous' } };

  for (const area of AREA_LIST) {
    server.registerResource(
      `schema_${area.name}`,
      RESOURCE_URIS.schema(area.name),
      { title: `Data model: ${area.label}`, description: `JSON Schema of the ${area.label} records, with which of their fields are public.`, mimeType: 'application/schema+json' },
      (u) => ({ contents: [{ uri: u.href, mimeType: 'application/schema+json', text: schemaText(area) }] }),
    );
  }

  const openapi = () => openApiParts(documents.openapi.read(), RESOURCE_URIS.openapiPart, `${ctx.deps.config.issuer}${documents.openapi.path}`);
  server.registerResource(
    'openapi',
    RESOURCE_URIS.openapi,
    {
      title: 'OpenAPI document: index',
      description: `The parts of the HTTP API's OpenAPI ${OPENAPI_VERSION} document (GET ${documents.openapi.path}, too large to read at once), one per area, each with its operations; read a part at ${RESOURCE_URIS.openapiPartTemplate}.`,
      mimeType: JSON_TYPE,
    },
    (u) => ({ contents: [{ uri: u.href, mimeType: JSON_TYPE, text: openapi().index }] }),
  );
  server.registerResource(
    'openapi_part',
    new ResourceTemplate(RESOURCE_URIS.openapiPartTemplate, {
      list: () => ({
        resources: [...openapi().parts].map(([name, part]) => ({
          uri: RESOURCE_URIS.openapiPart(name),
          name: `openapi_${name}`,
          title: `OpenAPI: ${name}`,
          description: `The ${part.operations.length} ${name} operation${part.operations.length === 1 ? '' : 's'} of the HTTP API as a standalone OpenAPI ${OPENAPI_VERSION} document.`,
          mimeType: JSON_TYPE,
        })),
      }),
      complete: { part: (value) => [...openapi().parts.keys()].filter((name) => name.startsWith(value)) },
    }),
    {
      title: 'OpenAPI document: one part',
      description: `The operations of one area of the HTTP API, with their parameters, bodies, answers and scopes, as a standalone OpenAPI ${OPENAPI_VERSION} document.`,
      mimeType: JSON_TYPE,
    },
    (u, variables) => {
      const name = Array.isArray(variables.part) ? variables.part[0] : variables.part;
      const part = openapi().parts.get(name ?? '');
      if (!part) throw new ResourceNotFoundError(u.href);
      return { contents: [{ uri: u.href, mimeType: JSON_TYPE, text: part.text }] };
    },
  );
  server.registerResource(
    'auth_md',
    RESOURCE_URIS.auth,
    { title: 'auth.md', description: `How to sign in with OAuth 2.0 and OpenID Connect, the same as GET ${documents.auth.path}.`, mimeType: 'text/markdown' },
    (u) => ({ contents: [{ uri: u.href, mimeType: 'text/markdown', text: documents.auth.read() }] }),
  );

  const template = new ResourceTemplate(RESOURCE_URIS.courseTemplate, {
    // Bounded: the template and the completion of {id} reach every other published course.
    list: async () => {
      const page = await ctx.records.list(AREAS.courses, 'public', { limit: LISTED_COURSES });
      return {
        resources: page.data.map((c) => ({
          uri: RESOURCE_URIS.course(String(c.id)),
          name: String(c.title),
          title: String(c.title),
          ...(c.summary ? { description: String(c.summary) } : {}),
          mimeType: JSON_TYPE,
        })),
      };
    },
    complete: { id: (value) => publishedCourseIds(ctx, value) },
  });
  server.registerResource(
    'course',
    template,
    { title: 'Published course', description: 'A published course with its lecturers and curriculum outline, as the anonymous REST API and the get_course tool show it.', mimeType: JSON_TYPE },
    async (u, variables) => {
      const id = Array.isArray(variables.id) ? variables.id[0] : variables.id;
      try {
        const { structured } = await getCourse.run(anonymous, { id: id ?? '' } as never);
        return { contents: [{ uri: u.href, mimeType: JSON_TYPE, text: JSON.stringify(structured, null, 2) }] };
      } catch (caught) {
        const err = ctx.deps.store.fault(caught);
        // A draft, archived or unknown course: the public view hides it as if it did not exist
        // (MCP 2026-07-28 resources, "Error Handling": a resource not found is -32602 Invalid params,
        // which replaced -32002; the SDK answers it so for every revision).
        if (err instanceof HttpError && err.status === 404) throw new ResourceNotFoundError(u.href);
        if (err instanceof HttpError) {
          logError(ctx.log.child({ resource: u.href }), err);
          throw new ProtocolError(INTERNAL_ERROR, err.description);
        }
        ctx.log.error({ err, resource: u.href }, 'MCP resource read failed');
        throw new ProtocolError(INTERNAL_ERROR, 'Reading the resource failed; try again later.');
      }
    },
  );
}

/** An area's JSON Schema, built on its first read: the field declarations do not change while the process runs. */
const schemaTexts = new Map<string, string>();

function schemaText(area: AreaDef): string {
  let text = schemaTexts.get(area.name);
  if (text === undefined) schemaTexts.set(area.name, (text = JSON.stringify(areaJsonSchema(area, RESOURCE_URIS.schema(area.name)), null, 2)));
  return text;
}

/**
 * Ids of published courses that start with `prefix`, in the catalog's order.
 * MCP completion: "Servers SHOULD return suggestions sorted by relevance" and
 * at most 100 values; the SDK cuts the list at 100 and reports the total.
 */
export async function publishedCourseIds(ctx: Pick<ToolContext, 'records'>, prefix: string): Promise<string[]> {
  const courses = await listAll(ctx.records, AREAS.courses, 'public', {});
  return courses.map((c) => String(c.id)).filter((id) => id.startsWith(prefix));
}
