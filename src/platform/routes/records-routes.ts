import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Deps } from '../../deps.ts';
import { documented, errorResponses as errors } from '../../http/routes/route-docs.ts';
import { declareRoute } from '../../resource/declare-route.ts';
import { OAuthError } from '../../oauth/errors.ts';
import { aLabel, AREA_LIST, type AreaDef } from '../areas.ts';
import { createSchema, recordSchema, updateSchema } from '../field-schemas.ts';
import { RecordService, viewFor } from '../records.ts';
import { API_PREFIX } from './paths.ts';
import { PAGE_SIZE } from '../page-size.ts';

/** "curriculum section" → "CurriculumSection": the noun of an area's operationIds. */
const pascal = (label: string) =>
  label
    .split(' ')
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');

function listQuerySchema(area: AreaDef) {
  const filters: Record<string, z.ZodType<string | undefined>> = {};
  for (const [name, f] of Object.entries(area.fields)) {
    if (f.filter) filters[name] = (f.type === 'enum' ? z.enum(f.enum as [string, ...string[]]) : z.string().max(320)).optional().describe(`Filter: ${f.description}`);
  }
  // Paging first, then the filters: the order /openapi.json lists them in.
  return z.object({
    limit: z.coerce.number().int().min(PAGE_SIZE.min).max(PAGE_SIZE.max).default(PAGE_SIZE.records).describe('Page size'),
    cursor: z.string().max(500).optional().describe('next_cursor of the previous page'),
    q: z.string().max(200).optional().describe('Text search'),
    ...filters,
  });
}

/** The path of one record. */
const idParams = z.object({ id: z.string().max(100) });

function viewOf(area: AreaDef, request: FastifyRequest) {
  const view = viewFor(area, request.caller);
  // A missing scope is the bearer guard's code (RFC 6750 §3.1), not the platform's.
  // The guard has already refused such a token on an area without a public view,
  // and an area with one always has a view: this only narrows the type.
  if (!view) throw new OAuthError('insufficient_scope', `This needs ${area.readScope}`);
  return view;
}

/**
 * The generic REST routes of every area: list, read, create, update, delete,
 * each declared once with the area's scope (guard and /openapi.json read it).
 */
export function registerRecordRoutes(app: FastifyInstance, deps: Deps, service: RecordService): void {
  for (const area of AREA_LIST) {
    const base = `${API_PREFIX}${area.path}`;
    const tags = [area.name];
    const publicView = Boolean(area.publicRead);
    const record = recordSchema(area.fields);
    const label = area.label;
    const noun = pascal(label);

    const read = { scopes: [area.readScope], anonymousView: publicView };
    declareRoute(
      app,
      deps,
      {
        method: 'GET',
        path: base,
        operationId: `list${noun}s`,
        ...read,
        schema: {
          tags,
          summary: `List ${label}s`,
          description: publicView ? `Anonymous callers and tokens without ${area.readScope} see published ${label}s, public fields only.` : `Needs ${area.readScope}.`,
          querystring: listQuerySchema(area),
          response: { 200: z.object({ data: z.array(record), next_cursor: z.string().optional() }), ...errors([400, 401, 403]) },
        },
      },
      async (request) => {
        const { limit, cursor, q, ...filters } = request.query;
        return service.list(area, viewOf(area, request), {
          limit,
          cursor,
          q,
          filters: Object.fromEntries(Object.entries(filters).filter((entry): entry is [string, string] => typeof entry[1] === 'string')),
        });
      },
    );
    declareRoute(
      app,
      deps,
      {
        method: 'GET',
        path: `${base}/:id`,
        operationId: `get${noun}`,
        ...read,
        schema: { tags, summary: `Read ${aLabel(area)}`, params: idParams, response: { 200: record, ...errors([401, 403, 404]) } },
      },
      async (request) => service.get(area, viewOf(area, request), request.params.id),
    );

    if (area.writeScope) {
      const write = { scopes: [area.writeScope] };
      declareRoute(
        app,
        deps,
        {
          method: 'POST',
          path: base,
          operationId: `create${noun}`,
          ...write,
          schema: { tags, summary: `Create ${aLabel(area)}`, body: createSchema(area.fields), response: { 201: record, ...errors([400, 401, 403, 409]) } },
        },
        async (request, reply) => {
          const created = await service.create(area, request.body);
          // RFC 9110 §15.3.2: the new resource "is identified by either a Location header field in the response or ...".
          return reply
            .code(201)
            .header('location', `${deps.config.issuer}${base}/${String(created.id)}`)
            .send(created);
        },
      );
      declareRoute(
        app,
        deps,
        {
          method: 'PATCH',
          path: `${base}/:id`,
          operationId: `update${noun}`,
          ...write,
          schema: { tags, summary: `Change ${aLabel(area)}`, params: idParams, body: updateSchema(area.fields), response: { 200: record, ...errors([400, 401, 403, 404, 409]) } },
        },
        async (request) => service.update(area, request.params.id, request.body),
      );
      declareRoute(
        app,
        deps,
        {
          method: 'DELETE',
          path: `${base}/:id`,
          operationId: `delete${noun}`,
          ...write,
          schema: { tags, summary: `Delete ${aLabel(area)}`, params: idParams, response: { 204: documented(z.null(), 'Deleted'), ...errors([401, 403, 404, 409]) } },
        },
        async (request, reply) => {
          await service.delete(area, request.params.id);
          return reply.code(204).send(null);
        },
      );
    }
  }
}
