import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Deps } from '../../deps.ts';
import { AREAS } from '../areas.ts';
import { CurriculumService, curriculumView } from '../curriculum.ts';
import { recordSchema, recordSummarySchema } from '../field-schemas.ts';
import type { RecordService } from '../records.ts';
import { errorResponses } from '../../http/routes/route-docs.ts';
import { declareRoute } from '../../resource/declare-route.ts';
import { API_PREFIX } from './paths.ts';

const ID = z.string().min(1).max(100);
const courseParams = z.object({ id: ID.describe('Course id') });

function outlineSchema() {
  const lesson = recordSchema(AREAS.lessons.fields);
  return z.object({
    course: recordSummarySchema(AREAS.courses.fields, ['title', 'slug', 'status']),
    sections: z.array(recordSchema(AREAS.sections.fields).extend({ lessons: z.array(lesson) })).describe('Sections by position, each with its lessons by position'),
  });
}

const REORDER_BODY = z.strictObject({
  sections: z.array(ID).max(1000).describe('Every section id of the course, in the new order'),
  lessons: z
    .record(ID, z.array(ID).max(1000))
    .refine((lessons) => Object.keys(lessons).length <= 1000, 'at most 1000 sections')
    .meta({ maxProperties: 1000 })
    .optional()
    .describe('Optional: section id → every lesson id of that section, in the new order'),
});

const POSITION = z.object({ id: z.string(), position: z.int() });
const REORDER_RESPONSE = z.object({ sections: z.array(POSITION.extend({ lessons: z.array(POSITION) })) });

/** GET /api/v1/courses/:id/curriculum and POST .../curriculum/reorder. */
export function registerCurriculumRoutes(app: FastifyInstance, deps: Deps, records: RecordService): void {
  const curriculum = new CurriculumService(deps, records);
  const tags = ['curriculum'];
  const base = `${API_PREFIX}/courses/:id/curriculum`;

  declareRoute(
    app,
    deps,
    {
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
    },
    async (request) => curriculum.outline(request.params.id, curriculumView(request.caller)),
  );

  declareRoute(
    app,
    deps,
    {
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
    },
    async (request) => curriculum.reorder(request.params.id, request.body),
  );
}
