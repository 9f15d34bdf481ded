/**
 * What /openapi.json says about the generic record routes, written by hand
 * for three kinds of area: a public one with enum and text filters
 * (courses), one with a two-word label and no public view (curriculum
 * sections), and one the API only reads (orders). Client generators name
 * methods, parameters and models from this. The server is started inside
 * the test, because the routes are declared while it is built.
 */
import { describe, expect, it } from 'vitest';
import { readJson } from '../helpers/bearer.ts';
import { startTestServer } from '../helpers/server.ts';

type Operation = {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: { in: string; name: string; required?: boolean; description?: string; schema: unknown }[];
  security?: unknown;
  responses: Record<string, { description?: string; content?: Record<string, { schema: Record<string, unknown> }> }>;
};

const PAGING = [
  { in: 'query', name: 'limit', required: false, description: 'Page size', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
  { in: 'query', name: 'cursor', required: false, description: 'next_cursor of the previous page', schema: { type: 'string', maxLength: 500 } },
  { in: 'query', name: 'q', required: false, description: 'Text search', schema: { type: 'string', maxLength: 200 } },
];
const ID = [{ in: 'path', name: 'id', required: true, schema: { type: 'string', maxLength: 100 } }];

describe('/openapi.json of the record routes', () => {
  it('lists, reads, creates, changes and deletes each area under its own names', async () => {
    const server = await startTestServer('sqlite');
    try {
      const res = await readJson(await fetch(`${server.issuer}/openapi.json`));
      expect(res.status, res.text).toBe(200);
      const paths = res.json.paths as Record<string, Record<string, Operation>>;
      const op = (path: string, method: string) => {
        const o = paths[path]?.[method];
        if (!o) throw new Error(`no ${method} ${path}`);
        return o;
      };
      const statuses = (o: Operation) => Object.keys(o.responses).sort();

      // A public area: anonymous callers are allowed, filters come from the fields.
      const listCourses = op('/api/v1/courses', 'get');
      expect(listCourses).toMatchObject({
        operationId: 'listCourses',
        summary: 'List courses',
        description: 'Anonymous callers and tokens without courses:read see published courses, public fields only.',
        tags: ['courses'],
        security: [{ lyceum_oauth: ['courses:read'] }, {}],
      });
      expect([...listCourses.parameters!].sort((a, b) => a.name.localeCompare(b.name))).toEqual(
        [
          ...PAGING,
          { in: 'query', name: 'slug', required: false, description: 'Filter: URL name, unique; made from the title when absent', schema: { type: 'string', maxLength: 320 } },
          { in: 'query', name: 'level', required: false, description: 'Filter: Level', schema: { type: 'string', enum: ['beginner', 'intermediate', 'advanced'] } },
          { in: 'query', name: 'language', required: false, description: 'Filter: Language (BCP 47 tag)', schema: { type: 'string', maxLength: 320 } },
          {
            in: 'query',
            name: 'status',
            required: false,
            description: 'Filter: draft, published or archived; only published ones are public',
            schema: { type: 'string', enum: ['draft', 'published', 'archived'] },
          },
        ].sort((a, b) => a.name.localeCompare(b.name)),
      );
      expect(statuses(listCourses)).toEqual(['200', '400', '401', '403']);
      const page = listCourses.responses['200']!.content!['application/json']!.schema;
      expect(Object.keys(page)).toEqual(['type', 'properties', 'required']);
      expect(page.required, 'every page has data; the last one has no next_cursor').toEqual(['data']);
      expect(page.type).toBe('object');
      const pageProps = page.properties as Record<string, Record<string, unknown>>;
      expect(Object.keys(pageProps)).toEqual(['data', 'next_cursor']);
      expect(pageProps.next_cursor).toEqual({ type: 'string' });
      expect(pageProps.data!.type).toBe('array');
      expect(pageProps.data!.items).toMatchObject({ type: 'object', properties: { id: { type: 'string', description: 'Identifier' }, title: { type: 'string', description: 'Title' } } });
      expect(listCourses.responses['401']).toMatchObject({ description: 'Error (401)' });

      const getCourse = op('/api/v1/courses/{id}', 'get');
      expect(getCourse).toMatchObject({ operationId: 'getCourse', summary: 'Read a course', tags: ['courses'], parameters: ID, security: [{ lyceum_oauth: ['courses:read'] }, {}] });
      expect(statuses(getCourse)).toEqual(['200', '400', '401', '403', '404']);
      expect(getCourse.responses['200']!.content!['application/json']!.schema).toMatchObject({
        type: 'object',
        properties: { slug: { anyOf: [{ type: 'string', minLength: 0, maxLength: 120 }, { type: 'null' }], description: 'URL name, unique; made from the title when absent' } },
      });

      const createCourse = op('/api/v1/courses', 'post');
      expect(createCourse).toMatchObject({ operationId: 'createCourse', summary: 'Create a course', tags: ['courses'], security: [{ lyceum_oauth: ['courses:write'] }] });
      // 409 and 422 include the Idempotency-Key's answers, documented on every POST under /api/v1.
      expect(statuses(createCourse)).toEqual(['201', '400', '401', '403', '409', '422']);
      expect(createCourse.responses['201']!.content!['application/json']!.schema).toMatchObject({ type: 'object', properties: { id: { type: 'string' } } });

      const updateCourse = op('/api/v1/courses/{id}', 'patch');
      expect(updateCourse).toMatchObject({ operationId: 'updateCourse', summary: 'Change a course', tags: ['courses'], parameters: ID, security: [{ lyceum_oauth: ['courses:write'] }] });
      expect(statuses(updateCourse)).toEqual(['200', '400', '401', '403', '404', '409']);
      expect(updateCourse.responses['200']!.content!['application/json']!.schema).toMatchObject({ type: 'object', properties: { id: { type: 'string' } } });

      const deleteCourse = op('/api/v1/courses/{id}', 'delete');
      expect(deleteCourse).toMatchObject({ operationId: 'deleteCourse', summary: 'Delete a course', tags: ['courses'], parameters: ID, security: [{ lyceum_oauth: ['courses:write'] }] });
      expect(statuses(deleteCourse)).toEqual(['204', '400', '401', '403', '404', '409']);
      expect(deleteCourse.responses['204']).toEqual({ description: 'Deleted' });

      // A two-word label makes one PascalCase noun; no public view, so no anonymous access.
      const listSections = op('/api/v1/curriculum/sections', 'get');
      expect(listSections).toMatchObject({
        operationId: 'listCurriculumSections',
        summary: 'List curriculum sections',
        description: 'Needs curriculum:read.',
        tags: ['sections'],
        security: [{ lyceum_oauth: ['curriculum:read'] }],
        parameters: [...PAGING, { in: 'query', name: 'course_id', required: false, description: 'Filter: Course it belongs to', schema: { type: 'string', maxLength: 320 } }],
      });
      expect({
        get: op('/api/v1/curriculum/sections/{id}', 'get').operationId,
        post: op('/api/v1/curriculum/sections', 'post').operationId,
        patch: op('/api/v1/curriculum/sections/{id}', 'patch').operationId,
        delete: op('/api/v1/curriculum/sections/{id}', 'delete').operationId,
      }).toEqual({ get: 'getCurriculumSection', post: 'createCurriculumSection', patch: 'updateCurriculumSection', delete: 'deleteCurriculumSection' });
      expect(op('/api/v1/membership-plans/{id}', 'get').summary).toBe('Read a membership plan');
      expect([op('/api/v1/events/{id}', 'get').summary, op('/api/v1/events/{id}', 'patch').summary, op('/api/v1/orders/{id}', 'get').summary]).toEqual([
        'Read an event',
        'Change an event',
        'Read an order',
      ]);

      // An area without a write scope is read-only.
      expect(Object.keys(paths['/api/v1/orders']!)).toEqual(['get']);
      expect(Object.keys(paths['/api/v1/orders/{id}']!)).toEqual(['get']);
      expect(op('/api/v1/orders', 'get')).toMatchObject({ operationId: 'listOrders', summary: 'List orders', description: 'Needs orders:read.' });
    } finally {
      await server.close();
    }
  });
});

/**
 * The record schemas /openapi.json serves, as client generators read them:
 * each field type's input and output schema, which fields a create needs,
 * what an update accepts, and the times every record carries. Written by
 * hand. The server is started inside the test, because the schemas are
 * built from the field declarations while it is built.
 */
type SchemaOperation = { requestBody?: { content: Record<string, { schema: unknown }> }; responses: Record<string, { content?: Record<string, { schema: unknown }> }> };

const TIMES = {
  created_at: { type: 'string', format: 'date-time', description: 'When it was created' },
  updated_at: { type: 'string', format: 'date-time', description: 'When it was last changed' },
};

const LESSON_INPUT = {
  section_id: { description: 'Section it belongs to', type: 'string', minLength: 1, maxLength: 100 },
  title: { description: 'Title', type: 'string', minLength: 1, maxLength: 200 },
  kind: { description: 'Kind of lesson', anyOf: [{ type: 'string', enum: ['video', 'text', 'quiz', 'assignment'] }, { type: 'null' }] },
  duration_minutes: { description: 'Expected duration in minutes', anyOf: [{ type: 'integer', minimum: 0, maximum: 10000 }, { type: 'null' }] },
  position: { description: 'Order within the section (0 first); when absent, after its last lesson', anyOf: [{ type: 'integer', minimum: 0, maximum: 10000 }, { type: 'null' }] },
  free_preview: { description: 'Open to everyone as a preview', type: ['boolean', 'null'] },
  content: { description: 'Lesson content (Markdown); only for the school, never public', anyOf: [{ type: 'string', maxLength: 100000 }, { type: 'null' }] },
};

const LECTURER_INPUT = {
  name: { description: 'Full name', type: 'string', minLength: 1, maxLength: 200 },
  headline: { description: 'Short headline', anyOf: [{ type: 'string', minLength: 0, maxLength: 200 }, { type: 'null' }] },
  bio: { description: 'Biography', anyOf: [{ type: 'string', maxLength: 10000 }, { type: 'null' }] },
  expertise: { description: 'Subjects', anyOf: [{ type: 'array', maxItems: 20, items: { type: 'string', maxLength: 60 } }, { type: 'null' }] },
  avatar_url: { description: 'Portrait', anyOf: [{ type: 'string', format: 'uri', maxLength: 2000 }, { type: 'null' }] },
  email: { description: 'Contact email (private)', anyOf: [{ type: 'string', format: 'email', maxLength: 320 }, { type: 'null' }] },
};

const COUPON_INPUT = {
  code: { description: 'Code customers type (unique)', type: 'string', minLength: 1, maxLength: 40 },
  percent_off: { description: 'Discount in percent (or use amount_off_cents)', anyOf: [{ type: 'integer', minimum: 0, maximum: 100 }, { type: 'null' }] },
  amount_off_cents: { description: 'Discount in minor units', anyOf: [{ type: 'integer', minimum: 0, maximum: 1000000000 }, { type: 'null' }] },
  valid_until: { description: 'Last moment it can be used', anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] },
  max_redemptions: { description: 'How many times it can be used (0: unlimited)', anyOf: [{ type: 'integer', minimum: 0, maximum: 1000000000 }, { type: 'null' }] },
  active: { description: 'Can be used now', type: ['boolean', 'null'] },
};

describe('record schemas in /openapi.json', () => {
  it('state each field type, the required fields and the server-set ones', async () => {
    const server = await startTestServer('sqlite');
    try {
      const res = await readJson(await fetch(`${server.issuer}/openapi.json`));
      expect(res.status, res.text).toBe(200);
      const paths = res.json.paths as Record<string, Record<string, SchemaOperation>>;
      const body = (path: string, method: string) => paths[`/api/v1${path}`]?.[method]?.requestBody?.content['application/json']?.schema;
      const record = (path: string) => paths[`/api/v1${path}/{id}`]?.get?.responses['200']?.content?.['application/json']?.schema;

      expect(body('/curriculum/lessons', 'post')).toEqual({ type: 'object', additionalProperties: false, properties: LESSON_INPUT, required: ['section_id', 'title'] });
      // course_id is read-only (taken from the section): neither a create nor an update accepts it.
      expect(body('/curriculum/lessons/{id}', 'patch')).toEqual({ type: 'object', additionalProperties: false, minProperties: 1, properties: LESSON_INPUT });
      // A record shows each field as a body takes it: the same value, null where an optional field has none.
      expect(record('/curriculum/lessons')).toEqual({
        type: 'object',
        properties: {
          id: { type: 'string', description: 'Identifier' },
          ...LESSON_INPUT,
          course_id: { description: 'Course it belongs to (from its section)', anyOf: [{ type: 'string', minLength: 1, maxLength: 100 }, { type: 'null' }] },
          ...TIMES,
        },
        // Every field is in every record, null where it has no value.
        required: ['id', 'section_id', 'course_id', 'title', 'kind', 'duration_minutes', 'position', 'free_preview', 'content', 'created_at', 'updated_at'],
      });

      expect(body('/lecturers', 'post')).toEqual({ type: 'object', additionalProperties: false, properties: LECTURER_INPUT, required: ['name'] });
      expect(body('/lecturers/{id}', 'patch')).toEqual({ type: 'object', additionalProperties: false, minProperties: 1, properties: LECTURER_INPUT });
      // A JSON field with a default shows the default, never null.
      expect(record('/lecturers')).toEqual({
        type: 'object',
        properties: {
          id: { type: 'string', description: 'Identifier' },
          ...LECTURER_INPUT,
          expertise: { description: 'Subjects', type: 'array', maxItems: 20, items: { type: 'string', maxLength: 60 } },
          ...TIMES,
        },
        required: ['id', 'name', 'headline', 'bio', 'expertise', 'avatar_url', 'email', 'created_at', 'updated_at'],
      });

      // times_redeemed is set by the server.
      expect(body('/coupons', 'post')).toEqual({ type: 'object', additionalProperties: false, properties: COUPON_INPUT, required: ['code'] });
      expect(body('/coupons/{id}', 'patch')).toEqual({ type: 'object', additionalProperties: false, minProperties: 1, properties: COUPON_INPUT });
      expect(record('/enrollments')).toEqual({
        type: 'object',
        properties: {
          id: { type: 'string', description: 'Identifier' },
          student_id: { description: 'Student', type: 'string', minLength: 1, maxLength: 100 },
          course_id: { description: 'Course', type: 'string', minLength: 1, maxLength: 100 },
          // Set by the server, with a default: never null.
          progress_percent: {
            description: "Progress, 0 to 100: the course's lessons completed over its lessons, rounded down (set by the server from lesson completions)",
            type: 'integer',
            minimum: 0,
            maximum: 100,
          },
          completed_at: {
            description: 'When the last lesson of the course was completed (set by the server; null while a lesson is left)',
            anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }],
          },
          access_expires_at: {
            description: "When the student's access to the course ends; null: it never does. Set a later time to extend it",
            anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }],
          },
          ...TIMES,
        },
        required: ['id', 'student_id', 'course_id', 'progress_percent', 'completed_at', 'access_expires_at', 'created_at', 'updated_at'],
      });
    } finally {
      await server.close();
    }
  });
});
