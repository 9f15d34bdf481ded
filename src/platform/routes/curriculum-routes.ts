import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.ts';
import { AREAS } from '../areas.ts';
import { CurriculumService, curriculumView, type ReorderInput } from '../curriculum.ts';
import { recordSchema } from '../fields.ts';
import type { RecordService } from '../records.ts';
import { errorResponses } from '../../http/routes/route-docs.ts';
import { declareRoute } from '../../resource/declare-route.ts';
import { API_PREFIX } from './paths.ts';

const ID = { type: 'string', minLength: 1, maxLength: 100 };
const courseParams = { type: 'object', required: ['id'], properties: { id: { ...ID, description: 'Course id' } } };

function outlineSchema() {
  const section = recordSchema(AREAS.sections.fields) as { properties: Record<string, unknown> };
  const lesson = recordSchema(AREAS.lessons.fields);
  return {
    type: 'object',
    properties: {
      course: { type: 'object', properties: { id: { type: 'string' }, title: { type: 'string' }, slug: { type: 'string' }, status: { type: 'string' } } },
      sections: {
        type: 'array',
        description: 'Sections by position, each with its lessons by position',
        items: { type: 'object', properties: { ...section.properties, lessons: { type: 'array', items: lesson } } },
      },
    },
  };
}

const REORDER_BODY = {
  type: 'object',
  required: ['sections'],
  additionalProperties: false,
  properties: {
    sections: { type: 'array', maxItems: 1000, items: ID, description: "Every section id of the course, in the new order" },
    lessons: {
      type: 'object',
      maxProperties: 1000,
      description: 'Optional: section id → every lesson id of that section, in the new order',
      additionalProperties: { type: 'array', maxItems: 1000, items: ID },
    },
  },
};

const REORDER_RESPONSE = {
  type: 'object',
  properties: {
    sections: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          position: { type: 'integer' },
          lessons: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, position: { type: 'integer' } } } },
        },
      },
    },
  },
};

/** GET /api/v1/courses/:id/curriculum and POST .../curriculum/reorder. */
export function registerCurriculumRoutes(app: FastifyInstance, deps: Deps, records: RecordService): void {
  const curriculum = new CurriculumService(deps, records);
  const tags = ['curriculum'];
  const base = `${API_PREFIX}/courses/:id/curriculum`;

  declareRoute(app, deps, {
    method: 'GET',
    path: base,
    operationId: 'getCurriculum',
    scopes: ['curriculum:read'],
    anonymousView: true,
    schema: {
      tags,
      summary: "Read a course's curriculum outline",
      description:
        'With curriculum:read: any course, every field including lesson content. Anonymous callers and tokens without it: published courses only, public fields only (no lesson content); other courses are 404.',
      params: courseParams,
      response: { 200: outlineSchema(), ...errorResponses([401, 404]) },
    },
  }, async (request) => curriculum.outline((request.params as { id: string }).id, curriculumView(request.caller)));

  declareRoute(app, deps, {
    method: 'POST',
    path: `${base}/reorder`,
    operationId: 'reorderCurriculum',
    scopes: ['curriculum:write'],
    schema: {
      tags,
      summary: "Reorder a course's sections and lessons",
      description:
        'Positions become 0, 1, 2 ... in the order given. sections lists every section of the course once; each lessons entry lists every lesson of one of its sections once. Other ids are 400 and nothing changes.',
      params: courseParams,
      body: REORDER_BODY,
      response: { 200: REORDER_RESPONSE, ...errorResponses([400, 401, 403, 404]) },
    },
  }, async (request) => curriculum.reorder((request.params as { id: string }).id, request.body as ReorderInput));
}
