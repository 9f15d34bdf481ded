import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Deps } from '../../deps.ts';
import { errorResponses } from '../../http/routes/route-docs.ts';
import { declareRoute } from '../../resource/declare-route.ts';
import { AREAS } from '../areas.ts';
import { BULK_ENROLL_LIMIT, EnrollByEmailService } from './enroll-by-email.ts';
import { fieldInput, recordSchema, recordSummarySchema } from '../field-schemas.ts';
import type { RecordService } from '../records.ts';
import { PROGRESS_PATHS } from './paths.ts';

const COURSE_ID = fieldInput(AREAS.enrollments.fields.course_id).describe('The course to enroll in');
const NAME = z.string().max(200).optional().describe("The student's name if one is created (default: the part of the email before @); an existing student's name is kept");
const EMAIL = z.string().max(320);

const ENROLL_BODY = z.strictObject({ email: fieldInput(AREAS.students.fields.email), course_id: COURSE_ID, name: NAME });

const ENROLL_RESULT = z.object({
  created_student: z.boolean().describe('No student had this email: one was created'),
  created_enrollment: z.boolean().describe('The student was not enrolled in the course: the enrollment was created'),
  student: recordSummarySchema(AREAS.students.fields, ['name', 'email']),
  enrollment: recordSchema(AREAS.enrollments.fields),
});

const BULK_BODY = z
  .strictObject({
    course_id: COURSE_ID,
    emails: z.array(EMAIL).max(BULK_ENROLL_LIMIT).optional().describe('Email addresses'),
    students: z
      .array(z.strictObject({ email: EMAIL, name: NAME }))
      .max(BULK_ENROLL_LIMIT)
      .optional()
      .describe('Email addresses with the name to give a new student'),
  })
  .describe(`emails, or students with names, or both: at most ${BULK_ENROLL_LIMIT} rows in all.`);

const BULK_RESULT = z.object({
  course_id: z.string(),
  results: z
    .array(
      z.object({
        email: z.string(),
        status: z.enum(['created', 'existing', 'invalid']).describe('created: enrolled now; existing: was already enrolled; invalid: not an email address, nothing written'),
        enrollment_id: z.string().optional(),
        student_id: z.string().optional(),
        created_student: z.boolean().optional(),
        error: z.string().optional(),
      }),
    )
    .describe('One per row, in the order sent'),
  counts: z.object({ created: z.int(), existing: z.int(), invalid: z.int() }),
});

/** POST /api/v1/enrollments/by-email and its bulk form: enrolment by email address, an upsert. */
export function registerEnrollByEmailRoutes(app: FastifyInstance, deps: Deps, records: RecordService): void {
  const service = new EnrollByEmailService(deps, records);
  const tags = ['enrollments'];

  declareRoute(
    app,
    deps,
    {
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
    },
    async (request, reply) => {
      const outcome = await service.enroll(request.body);
      reply.code(outcome.created_enrollment ? 201 : 200);
      return outcome;
    },
  );

  declareRoute(
    app,
    deps,
    {
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
    },
    async (request) => service.enrollMany(request.body),
  );
}
