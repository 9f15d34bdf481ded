import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.ts';
import { errorResponses } from '../../http/routes/route-docs.ts';
import { declareRoute } from '../../resource/declare-route.ts';
import { AREAS } from '../areas.ts';
import { BULK_ENROLL_LIMIT, EnrollByEmailService, type BulkEnrollInput, type EnrollByEmailInput } from './enroll-by-email.ts';
import { inputSchema, recordSchema } from '../fields.ts';
import type { RecordService } from '../records.ts';
import { PROGRESS_PATHS } from './paths.ts';

const COURSE_ID = { ...inputSchema(AREAS.enrollments.fields.course_id), description: 'The course to enroll in' };
const NAME = { type: 'string', maxLength: 200, description: "The student's name if one is created (default: the part of the email before @); an existing student's name is kept" };

const ENROLL_BODY = {
  type: 'object',
  required: ['email', 'course_id'],
  additionalProperties: false,
  properties: { email: inputSchema(AREAS.students.fields.email), course_id: COURSE_ID, name: NAME },
};

const ENROLL_RESULT = {
  type: 'object',
  properties: {
    created_student: { type: 'boolean', description: 'No student had this email: one was created' },
    created_enrollment: { type: 'boolean', description: 'The student was not enrolled in the course: the enrollment was created' },
    student: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' }, email: { type: 'string' } } },
    enrollment: recordSchema(AREAS.enrollments.fields),
  },
};

const BULK_BODY = {
  type: 'object',
  required: ['course_id'],
  additionalProperties: false,
  description: `emails, or students with names, or both: at most ${BULK_ENROLL_LIMIT} rows in all.`,
  properties: {
    course_id: COURSE_ID,
    emails: { type: 'array', maxItems: BULK_ENROLL_LIMIT, items: { type: 'string', maxLength: 320 }, description: 'Email addresses' },
    students: {
      type: 'array',
      maxItems: BULK_ENROLL_LIMIT,
      description: 'Email addresses with the name to give a new student',
      items: { type: 'object', required: ['email'], additionalProperties: false, properties: { email: { type: 'string', maxLength: 320 }, name: NAME } },
    },
  },
};

const BULK_RESULT = {
  type: 'object',
  properties: {
    course_id: { type: 'string' },
    results: {
      type: 'array',
      description: 'One per row, in the order sent',
      items: {
        type: 'object',
        properties: {
          email: { type: 'string' },
          status: { type: 'string', enum: ['created', 'existing', 'invalid'], description: 'created: enrolled now; existing: was already enrolled; invalid: not an email address, nothing written' },
          enrollment_id: { type: 'string' },
          student_id: { type: 'string' },
          created_student: { type: 'boolean' },
          error: { type: 'string' },
        },
      },
    },
    counts: { type: 'object', properties: { created: { type: 'integer' }, existing: { type: 'integer' }, invalid: { type: 'integer' } } },
  },
};

/** POST /api/v1/enrollments/by-email and its bulk form: enrolment by email address, an upsert. */
export function registerEnrollByEmailRoutes(app: FastifyInstance, deps: Deps, records: RecordService): void {
  const service = new EnrollByEmailService(deps, records);
  const tags = ['enrollments'];

  declareRoute(app, deps, {
    method: 'POST',
    path: PROGRESS_PATHS.enrollByEmail,
    operationId: 'enrollByEmail',
    scopes: ['students:write'],
    schema: {
      tags,
      summary: 'Enroll an email address in a course',
      description:
        'An upsert: the student with this email (created when there is none) is enrolled unless already enrolled. 201 when the enrollment was created, 200 with the existing one otherwise; created_student and created_enrollment say what was made. Safe to retry, and concurrent calls for one email make one student and one enrollment. An unknown course_id is 400.',
      body: ENROLL_BODY,
      response: { 200: ENROLL_RESULT, 201: ENROLL_RESULT, ...errorResponses([400, 401, 403]) },
    },
  }, async (request, reply) => {
    const outcome = await service.enroll(request.body as EnrollByEmailInput);
    reply.code(outcome.created_enrollment ? 201 : 200);
    return outcome;
  });

  declareRoute(app, deps, {
    method: 'POST',
    path: PROGRESS_PATHS.enrollByEmailBulk,
    operationId: 'enrollByEmailBulk',
    scopes: ['students:write'],
    schema: {
      tags,
      summary: 'Enroll many email addresses in a course',
      description: `Up to ${BULK_ENROLL_LIMIT} rows (emails and students together; more is 400 and nothing is written). Each row as POST ${PROGRESS_PATHS.enrollByEmail} does it, in order, with a result of its own: a row that is not an email address is status invalid and the others go on. Safe to retry.`,
      body: BULK_BODY,
      response: { 200: BULK_RESULT, ...errorResponses([400, 401, 403]) },
    },
  }, async (request) => service.enrollMany(request.body as BulkEnrollInput));
}
