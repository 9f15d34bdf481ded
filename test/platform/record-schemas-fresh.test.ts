/**
 * The record schemas /openapi.json serves, as client generators read them:
 * each field type's input and output schema, which fields a create needs,
 * what an update accepts, and the times every record carries. Written by
 * hand. The server is started inside the test, because the schemas are
 * built from the field declarations while it is built.
 */
import { describe, expect, it } from 'vitest';
import { readJson } from '../helpers/bearer.ts';
import { startTestServer } from '../helpers/server.ts';

type Operation = { requestBody?: { content: Record<string, { schema: unknown }> }; responses: Record<string, { content?: Record<string, { schema: unknown }> }> };

const TIMES = {
  created_at: { type: 'string', format: 'date-time', description: 'When it was created' },
  updated_at: { type: 'string', format: 'date-time', description: 'When it was last changed' },
};

const LESSON_INPUT = {
  section_id: { description: 'Section it belongs to', type: 'string', minLength: 1, maxLength: 100 },
  title: { description: 'Title', type: 'string', minLength: 1, maxLength: 200 },
  kind: { description: 'Kind of lesson', nullable: true, type: 'string', enum: ['video', 'text', 'quiz', 'assignment'] },
  duration_minutes: { description: 'Expected duration in minutes', nullable: true, type: 'integer', minimum: 0, maximum: 10000 },
  position: { description: 'Order within the section (0 first); when absent, after its last lesson', nullable: true, type: 'integer', minimum: 0, maximum: 10000 },
  free_preview: { description: 'Open to everyone as a preview', nullable: true, type: 'boolean' },
  content: { description: 'Lesson content (Markdown); only for the school, never public', nullable: true, type: 'string', maxLength: 100000 },
};

const LECTURER_INPUT = {
  name: { description: 'Full name', type: 'string', minLength: 1, maxLength: 200 },
  headline: { description: 'Short headline', nullable: true, type: 'string', minLength: 0, maxLength: 200 },
  bio: { description: 'Biography', nullable: true, type: 'string', maxLength: 10000 },
  expertise: { description: 'Subjects', nullable: true, type: 'array', maxItems: 20, items: { type: 'string', maxLength: 60 } },
  avatar_url: { description: 'Portrait', nullable: true, type: 'string', format: 'uri', pattern: '^https?://', maxLength: 2000 },
  email: { description: 'Contact email (private)', nullable: true, type: 'string', format: 'email', maxLength: 320 },
};

const COUPON_INPUT = {
  code: { description: 'Code customers type (unique)', type: 'string', minLength: 1, maxLength: 40 },
  percent_off: { description: 'Discount in percent (or use amount_off_cents)', nullable: true, type: 'integer', minimum: 0, maximum: 100 },
  amount_off_cents: { description: 'Discount in minor units', nullable: true, type: 'integer', minimum: 0, maximum: 1000000000 },
  valid_until: { description: 'Last moment it can be used', nullable: true, type: 'string', format: 'date-time' },
  max_redemptions: { description: 'How many times it can be used (0: unlimited)', nullable: true, type: 'integer', minimum: 0, maximum: 1000000000 },
  active: { description: 'Can be used now', nullable: true, type: 'boolean' },
};

describe('record schemas in /openapi.json', () => {
  it('state each field type, the required fields and the server-set ones', async () => {
    const server = await startTestServer('sqlite');
    try {
      const res = await readJson(await fetch(`${server.issuer}/openapi.json`));
      expect(res.status, res.text).toBe(200);
      const paths = res.json.paths as Record<string, Record<string, Operation>>;
      const body = (path: string, method: string) => paths[`/api/v1${path}`]?.[method]?.requestBody?.content['application/json']?.schema;
      const record = (path: string) => paths[`/api/v1${path}/{id}`]?.get?.responses['200']?.content?.['application/json']?.schema;

      expect(body('/curriculum/lessons', 'post')).toEqual({ type: 'object', additionalProperties: false, properties: LESSON_INPUT, required: ['section_id', 'title'] });
      // course_id is read-only (taken from the section): neither a create nor an update accepts it.
      expect(body('/curriculum/lessons/{id}', 'patch')).toEqual({ type: 'object', additionalProperties: false, minProperties: 1, properties: LESSON_INPUT });
      expect(record('/curriculum/lessons')).toEqual({
        type: 'object',
        properties: {
          id: { type: 'string', description: 'Identifier' },
          section_id: { description: 'Section it belongs to', type: 'string', nullable: false },
          course_id: { description: 'Course it belongs to (from its section)', type: 'string', nullable: true },
          title: { description: 'Title', type: 'string', nullable: false },
          kind: { description: 'Kind of lesson', type: 'string', enum: ['video', 'text', 'quiz', 'assignment'] },
          duration_minutes: { description: 'Expected duration in minutes', type: 'integer' },
          position: { description: 'Order within the section (0 first); when absent, after its last lesson', type: 'integer' },
          free_preview: { description: 'Open to everyone as a preview', type: 'boolean' },
          content: { description: 'Lesson content (Markdown); only for the school, never public', type: 'string', nullable: true },
          ...TIMES,
        },
      });

      expect(body('/lecturers', 'post')).toEqual({ type: 'object', additionalProperties: false, properties: LECTURER_INPUT, required: ['name'] });
      expect(body('/lecturers/{id}', 'patch')).toEqual({ type: 'object', additionalProperties: false, minProperties: 1, properties: LECTURER_INPUT });
      expect(record('/lecturers')).toEqual({
        type: 'object',
        properties: {
          id: { type: 'string', description: 'Identifier' },
          name: { description: 'Full name', type: 'string', nullable: false },
          headline: { description: 'Short headline', type: 'string', nullable: true },
          bio: { description: 'Biography', type: 'string', nullable: true },
          expertise: { description: 'Subjects', type: 'array', maxItems: 20, items: { type: 'string', maxLength: 60 } },
          avatar_url: { description: 'Portrait', type: 'string', nullable: true },
          email: { description: 'Contact email (private)', type: 'string', nullable: true },
          ...TIMES,
        },
      });

      // times_redeemed is set by the server.
      expect(body('/coupons', 'post')).toEqual({ type: 'object', additionalProperties: false, properties: COUPON_INPUT, required: ['code'] });
      expect(body('/coupons/{id}', 'patch')).toEqual({ type: 'object', additionalProperties: false, minProperties: 1, properties: COUPON_INPUT });
      expect(record('/enrollments')).toEqual({
        type: 'object',
        properties: {
          id: { type: 'string', description: 'Identifier' },
          student_id: { description: 'Student', type: 'string', nullable: false },
          course_id: { description: 'Course', type: 'string', nullable: false },
          progress_percent: { description: "Progress, 0 to 100: the course's lessons completed over its lessons, rounded down (set by the server from lesson completions)", type: 'integer' },
          completed_at: { description: 'When the last lesson of the course was completed (set by the server; null while a lesson is left)', type: 'string', format: 'date-time', nullable: true },
          access_expires_at: { description: "When the student's access to the course ends; null: it never does. Set a later time to extend it", type: 'string', format: 'date-time', nullable: true },
          ...TIMES,
        },
      });
    } finally {
      await server.close();
    }
  });
});
