import { API_PREFIX } from '../routes/paths.ts';

/** The paths of lesson progress and enrollment by email, in Fastify's `:param` form. */
export const PROGRESS_PATHS = {
  lessonCompletion: `${API_PREFIX}/enrollments/:id/lessons/:lesson_id/completion`,
  enrollmentProgress: `${API_PREFIX}/enrollments/:id/progress`,
  myLessonCompletion: `${API_PREFIX}/account/lessons/:lesson_id/completion`,
  myEnrollmentProgress: `${API_PREFIX}/account/enrollments/:id/progress`,
  enrollByEmail: `${API_PREFIX}/enrollments/by-email`,
  enrollByEmailBulk: `${API_PREFIX}/enrollments/by-email/bulk`,
} as const;

/** A path as OpenAPI and the documents write it: `{param}` for `:param`. */
export const documentedPath = (path: string): string => path.replace(/:([a-z_]+)/g, '{$1}');
