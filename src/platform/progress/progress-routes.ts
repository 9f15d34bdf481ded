import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Deps } from '../../deps.ts';
import { errorResponses } from '../../http/routes/route-docs.ts';
import { declareRoute } from '../../resource/declare-route.ts';
import { AREAS } from '../areas.ts';
import { recordSchema, recordSummarySchema } from '../field-schemas.ts';
import { ProgressService } from './progress-service.ts';
import type { RecordService } from '../records.ts';
import { PROGRESS_PATHS } from './paths.ts';
import { tokenCaller } from '../routes/token-caller.ts';

const ID = z.string().min(1).max(100);
const TIME = z.iso.datetime({ offset: true }).nullable();

const COMPLETION_RESULT = z.object({
  lesson_id: z.string(),
  completed: z.boolean().describe('The lesson is now completed'),
  completed_at: TIME.describe('When the lesson was completed; null when it is not'),
  changed: z.boolean().describe('False when the lesson already was (PUT) or was not (DELETE) completed: nothing changed'),
  completed_lessons: z.int().describe("Completed lessons of the enrollment's course"),
  total_lessons: z.int().describe("Lessons of the enrollment's course"),
  enrollment: recordSchema(AREAS.enrollments.fields).describe('The enrollment with its new progress_percent and completed_at'),
});

const PROGRESS_REPORT = z.object({
  enrollment_id: z.string(),
  student_id: z.string(),
  course_id: z.string(),
  progress_percent: z.int().describe('Completed lessons over the lessons of the course, rounded down; 100 only when every lesson is completed'),
  completed_at: TIME.describe('When the last lesson was completed; null while one is left'),
  access_expires_at: TIME.describe('When access to the course ends; null: never'),
  access_expired: z.boolean().describe('Access has ended: the learner can no longer open or complete lessons'),
  completed_lessons: z.int(),
  total_lessons: z.int(),
  lessons: z
    .array(recordSummarySchema(AREAS.lessons.fields, ['section_id', 'title']).extend({ completed_at: TIME.describe('null: not completed') }))
    .describe('Every lesson of the course in curriculum order'),
});

const enrollmentLessonParams = z.object({ id: ID.describe('Enrollment id'), lesson_id: ID.describe("Id of a lesson of the enrollment's course") });
const enrollmentParams = z.object({ id: ID.describe('Enrollment id') });
const lessonParams = z.object({ lesson_id: ID.describe('Lesson id') });

const PERCENT_RULE =
  "The enrollment's progress_percent becomes the course's completed lessons over its lessons, rounded down, and completed_at is set when the last lesson is completed and cleared when a lesson is left undone; both change in the same transaction as the completion.";

/** Lesson completions and progress: the school's, on any enrollment, and the learner's own. */
export function registerProgressRoutes(app: FastifyInstance, deps: Deps, records: RecordService): void {
  const progress = new ProgressService(deps, records);
  const tags = ['enrollments'];

  declareRoute(
    app,
    deps,
    {
      method: 'PUT',
      path: PROGRESS_PATHS.lessonCompletion,
      operationId: 'completeEnrollmentLesson',
      scopes: ['students:write'],
      schema: {
        tags,
        summary: 'Mark a lesson completed for an enrollment',
        description: `Idempotent: a lesson already completed keeps its completion time (changed: false). ${PERCENT_RULE} A lesson of another course is 404. The school may complete lessons of an enrollment whose access has ended.`,
        params: enrollmentLessonParams,
        response: { 200: COMPLETION_RESULT, ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => {
      const { id, lesson_id } = request.params;
      return progress.complete(id, lesson_id);
    },
  );

  declareRoute(
    app,
    deps,
    {
      method: 'DELETE',
      path: PROGRESS_PATHS.lessonCompletion,
      operationId: 'uncompleteEnrollmentLesson',
      scopes: ['students:write'],
      schema: {
        tags,
        summary: "Undo a lesson's completion for an enrollment",
        description: `Idempotent: a lesson that is not completed is answered as it is (changed: false). ${PERCENT_RULE}`,
        params: enrollmentLessonParams,
        response: { 200: COMPLETION_RESULT, ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => {
      const { id, lesson_id } = request.params;
      return progress.uncomplete(id, lesson_id);
    },
  );

  declareRoute(
    app,
    deps,
    {
      method: 'GET',
      path: PROGRESS_PATHS.enrollmentProgress,
      operationId: 'getEnrollmentProgress',
      scopes: ['students:read'],
      schema: {
        tags,
        summary: "Read an enrollment's progress lesson by lesson",
        description: "Computed from the course's lessons as they are now, so a lesson added or deleted since the last completion is counted.",
        params: enrollmentParams,
        response: { 200: PROGRESS_REPORT, ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => progress.report(request.params.id),
  );

  const LEARNER_RULES =
    "Only a lesson of a course your own student record is enrolled in (else 403 not_enrolled), while the record is active and the course is not in draft (else 403 lesson_not_open) and the enrollment's access has not ended (else 403 access_expired).";

  declareRoute(
    app,
    deps,
    {
      method: 'PUT',
      path: PROGRESS_PATHS.myLessonCompletion,
      operationId: 'completeMyLesson',
      scopes: ['account:write'],
      schema: {
        tags: ['account'],
        summary: 'Mark one of your lessons completed',
        description: `Idempotent. ${LEARNER_RULES} ${PERCENT_RULE}`,
        params: lessonParams,
        response: { 200: COMPLETION_RESULT, ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => progress.setMine(tokenCaller(request).userId, request.params.lesson_id, true),
  );

  declareRoute(
    app,
    deps,
    {
      method: 'DELETE',
      path: PROGRESS_PATHS.myLessonCompletion,
      operationId: 'uncompleteMyLesson',
      scopes: ['account:write'],
      schema: {
        tags: ['account'],
        summary: "Undo one of your lessons' completion",
        description: `Idempotent. ${LEARNER_RULES} ${PERCENT_RULE}`,
        params: lessonParams,
        response: { 200: COMPLETION_RESULT, ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => progress.setMine(tokenCaller(request).userId, request.params.lesson_id, false),
  );

  declareRoute(
    app,
    deps,
    {
      method: 'GET',
      path: PROGRESS_PATHS.myEnrollmentProgress,
      operationId: 'getMyEnrollmentProgress',
      scopes: ['account:read'],
      schema: {
        tags: ['account'],
        summary: 'Read the progress of one of your enrollments',
        description: "Your own enrollments only (GET /api/v1/account lists them); any other id is 404. Lesson titles and completion times, never a lesson's content.",
        params: enrollmentParams,
        response: { 200: PROGRESS_REPORT, ...errorResponses([401, 403, 404]) },
      },
    },
    async (request) => progress.myReport(tokenCaller(request).userId, request.params.id),
  );
}
