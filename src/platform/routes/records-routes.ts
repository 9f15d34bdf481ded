import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.ts';
import { errorResponses as errors } from '../../http/routes/route-docs.ts';
import { declareRoute } from '../../resource/declare-route.ts';
import { OAuthError } from '../../oauth/errors.ts';
import { aLabel, AREA_LIST, type AreaDef } from '../areas.ts';
import { createSchema, recordSchema, updateSchema } from '../fields.ts';
import { RecordService, viewFor } from '../records.ts';
import { API_PREFIX } from './paths.ts';
import { PAGE_SIZE } from '../page-size.ts';

/** "curriculum section" → "CurriculumSection": the noun of an area's operationIds. */
const pascal = (label: string) => label.split(' ').map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');

function listQuerySchema(area: AreaDef) {
  const properties: Record<string, unknown> = {
    limit: { type: 'integer', minimum: PAGE_SIZE.min, maximum: PAGE_SIZE.max, default: PAGE_SIZE.records, description: 'Page size' },
    cursor: { type: 'string', maxLength: 500, description: 'next_cursor of the previous page' },
    q: { type: 'string', maxLength: 200, description: 'Text search' },
  };
  for (const [name, f] of Object.entries(area.fields)) {
    if (!f.filter) continue;
    properties[name] = f.type === 'enum' ? { type: 'string', enum: [...f.enum!], description: `Filter: ${f.description}` } : { type: 'string', maxLength: 320, description: `Filter: ${f.description}` };
  }
  return { type: 'object', properties };
}

const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 100 } } };

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
    declareRoute(app, deps, {
      method: 'GET',
      path: base,
      operationId: `list${noun}s`,
      ...read,
      schema: {
        tags,
        summary: `List ${label}s`,
        description: publicView ? `Anonymous callers and tokens without ${area.readScope} see published ${label}s, public fields only.` : `Needs ${area.readScope}.`,
        querystring: listQuerySchema(area),
        response: { 200: { type: 'object', properties: { data: { type: 'array', items: record }, next_cursor: { type: 'string' } } }, ...errors([400, 401, 403]) },
      },
    }, async (request) => {
      // The query schema has already made limit a number and the others strings.
      const { limit, cursor, q, ...filters } = request.query as { limit?: number; cursor?: string; q?: string } & Record<string, string | number | undefined>;
      return service.list(area, viewOf(area, request), {
        limit,
        cursor,
        q,
        filters: Object.fromEntries(Object.entries(filters).filter(([, v]) => typeof v === 'string')) as Record<string, string>,
      });
    });
    declareRoute(app, deps, {
      method: 'GET',
      path: `${base}/:id`,
      operationId: `get${noun}`,
      ...read,
      schema: { tags, summary: `Read ${aLabel(area)}`, params: idParams, response: { 200: record, ...errors([401, 403, 404]) } },
    }, async (request) => service.get(area, viewOf(area, request), (request.params as { id: string }).id));

    if (area.writeScope) {
      const write = { scopes: [area.writeScope] };
      declareRoute(app, deps, {
        method: 'POST',
        path: base,
        operationId: `create${noun}`,
        ...write,
        schema: { tags, summary: `Create ${aLabel(area)}`, body: createSchema(area.fields), response: { 201: record, ...errors([400, 401, 403, 409]) } },
      }, async (request, reply) => {
        const created = await service.create(area, request.body as Record<string, unknown>);
        // RFC 9110 §15.3.2: the new resource "is identified by either a Location header field in the response or ...".
        return reply.code(201).header('location', `${deps.config.issuer}${base}/${String(created.id)}`).send(created);
      });
      declareRoute(app, deps, {
        method: 'PATCH',
        path: `${base}/:id`,
        operationId: `update${noun}`,
        ...write,
        schema: { tags, summary: `Change ${aLabel(area)}`, params: idParams, body: updateSchema(area.fields), response: { 200: record, ...errors([400, 401, 403, 404, 409]) } },
      }, async (request) => service.update(area, (request.params as { id: string }).id, request.body as Record<string, unknown>));
      declareRoute(app, deps, {
        method: 'DELETE',
        path: `${base}/:id`,
        operationId: `delete${noun}`,
        ...write,
        schema: { tags, summary: `Delete ${aLabel(area)}`, params: idParams, response: { 204: { type: 'null', description: 'Deleted' }, ...errors([401, 403, 404, 409]) } },
      }, async (request, reply) => {
        await service.delete(area, (request.params as { id: string }).id);
        return reply.code(204).send();
      });
    }
  }
}
