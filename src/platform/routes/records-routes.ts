import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.ts';
import { PlatformError } from '../errors.ts';
import { protect } from '../../resource/fastify-guard.ts';
import { AREA_LIST, type AreaDef } from '../areas.ts';
import { createSchema, recordSchema, updateSchema } from '../fields.ts';
import { RecordService, viewFor } from '../records.ts';
import { securityFor } from '../../resource/openapi-security.ts';

export const API_PREFIX = '/api/v1';

const ERROR_SCHEMA = {
  type: 'object',
  description: 'RFC 6749 §5.2 error',
  properties: { error: { type: 'string' }, error_description: { type: 'string' } },
};

const errors = (codes: number[]) => Object.fromEntries(codes.map((c) => [c, { ...ERROR_SCHEMA, description: `Error (${c})` }]));

function listQuerySchema(area: AreaDef) {
  const properties: Record<string, unknown> = {
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 20, description: 'Page size' },
    cursor: { type: 'string', maxLength: 500, description: 'next_cursor of the previous page' },
    q: { type: 'string', maxLength: 200, description: 'Text search' },
  };
  for (const [name, f] of Object.entries(area.fields)) {
    if (!f.filter) continue;
    properties[name] = f.type === 'enum' ? { type: 'string', enum: [...(f.enum ?? [])], description: `Filter: ${f.description}` } : { type: 'string', maxLength: 320, description: `Filter: ${f.description}` };
  }
  return { type: 'object', properties };
}

const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 100 } } };

function viewOf(area: AreaDef, request: FastifyRequest) {
  const view = viewFor(area, request.caller);
  if (!view) throw new PlatformError('insufficient_scope', `This needs ${area.readScope}`);
  return view;
}

/**
 * The generic REST routes of every area: list, read, create, update, delete,
 * each declaring its scope once (guard, PRM and /openapi.json read it).
 */
export function registerRecordRoutes(app: FastifyInstance, deps: Deps, service: RecordService): void {
  for (const area of AREA_LIST) {
    const base = `${API_PREFIX}${area.path}`;
    const tags = [area.name];
    const publicView = Boolean(area.publicRead);
    const record = recordSchema(area.fields);
    const label = area.label;

    if (area.readScope) {
      const read = { preValidation: protect(deps, [area.readScope], { publicView }) };
      app.get(base, {
        ...read,
        schema: {
          tags,
          summary: `List ${label}s`,
          description: publicView ? `Anonymous callers and tokens without ${area.readScope} see published ${label}s, public fields only.` : `Needs ${area.readScope}.`,
          querystring: listQuerySchema(area),
          security: securityFor([area.readScope], publicView),
          response: { 200: { type: 'object', properties: { data: { type: 'array', items: record }, next_cursor: { type: 'string' } } }, ...errors([400, 401, 403]) },
        },
      }, async (request) => {
        const { limit, cursor, q, ...filters } = request.query as Record<string, string | number | undefined>;
        return service.list(area, viewOf(area, request), {
          ...(typeof limit === 'number' ? { limit } : {}),
          ...(typeof cursor === 'string' ? { cursor } : {}),
          ...(typeof q === 'string' ? { q } : {}),
          filters: Object.fromEntries(Object.entries(filters).filter(([, v]) => typeof v === 'string')) as Record<string, string>,
        });
      });
      app.get(`${base}/:id`, {
        ...read,
        schema: { tags, summary: `Read a ${label}`, params: idParams, security: securityFor([area.readScope], publicView), response: { 200: record, ...errors([401, 403, 404]) } },
      }, async (request) => service.get(area, viewOf(area, request), (request.params as { id: string }).id));
    }

    if (area.writeScope) {
      const write = { preValidation: protect(deps, [area.writeScope]) };
      const security = securityFor([area.writeScope]);
      app.post(base, {
        ...write,
        schema: { tags, summary: `Create a ${label}`, body: createSchema(area.fields), security, response: { 201: record, ...errors([400, 401, 403, 409]) } },
      }, async (request, reply) => {
        reply.code(201);
        return service.create(area, request.body as Record<string, unknown>);
      });
      app.patch(`${base}/:id`, {
        ...write,
        schema: { tags, summary: `Change a ${label}`, params: idParams, body: updateSchema(area.fields), security, response: { 200: record, ...errors([400, 401, 403, 404, 409]) } },
      }, async (request) => service.update(area, (request.params as { id: string }).id, request.body as Record<string, unknown>));
      app.delete(`${base}/:id`, {
        ...write,
        schema: { tags, summary: `Delete a ${label}`, params: idParams, security, response: { 204: { type: 'null', description: 'Deleted' }, ...errors([401, 403, 404, 409]) } },
      }, async (request, reply) => {
        await service.delete(area, (request.params as { id: string }).id);
        return reply.code(204).send();
      });
    }
  }
}
