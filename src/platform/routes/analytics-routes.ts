import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.ts';
import { AnalyticsService, type AnalyticsQuery } from '../analytics.ts';
import { errorResponses } from '../../http/routes/route-docs.ts';
import { declareRoute } from '../../resource/declare-route.ts';
import { API_PREFIX } from './paths.ts';

const DAY = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' };

const point = (key: string, description: string) => ({
  type: 'array',
  description,
  items: { type: 'object', properties: { period: { type: 'string', description: 'YYYY-MM, or YYYY-Www for ISO weeks' }, [key]: { type: 'integer' } } },
});

const REPORT_SCHEMA = {
  type: 'object',
  properties: {
    currency: { type: 'string', description: "The school's currency; revenue is in its minor units" },
    interval: { type: 'string', enum: ['month', 'week'] },
    from: { type: 'string', format: 'date' },
    to: { type: 'string', format: 'date' },
    enrollments: point('count', 'Enrollments created per period'),
    revenue: point('total_cents', "Paid orders per period (by paid_at), in the school's currency"),
    active_students: point('count', 'Distinct students with an enrollment created or an order paid in the period'),
    lessons_completed: point('count', 'Lesson completions per period (by completion time; an undone completion no longer counts)'),
    enrollments_completed: point('count', 'Enrollments whose last lesson was completed in the period (and still are complete)'),
    totals: {
      type: 'object',
      description: 'enrollments, revenue_cents, lessons_completed, enrollments_completed and average_progress_percent over the range; the others as they are now',
      properties: {
        students: { type: 'integer' },
        courses_published: { type: 'integer' },
        enrollments: { type: 'integer' },
        revenue_cents: { type: 'integer' },
        active_subscriptions: { type: 'integer' },
        lessons_completed: { type: 'integer' },
        enrollments_completed: { type: 'integer' },
        average_progress_percent: { type: 'integer', nullable: true, description: 'Mean progress_percent of the enrollments created in the range, rounded; null when there are none' },
      },
    },
  },
};

/** GET /api/v1/analytics: enrollment, revenue and activity figures. */
export function registerAnalyticsRoutes(app: FastifyInstance, deps: Deps): void {
  const analytics = new AnalyticsService(deps);

  declareRoute(app, deps, {
    method: 'GET',
    path: `${API_PREFIX}/analytics`,
    operationId: 'getAnalytics',
    scopes: ['analytics:read'],
    schema: {
      tags: ['analytics'],
      summary: 'Read the school analytics',
      description:
        'Series per month or ISO week (UTC) between from and to (inclusive days; default the last twelve calendar months up to today). Ranges longer than five years, or from after to, are 400.',
      querystring: {
        type: 'object',
        properties: {
          from: { ...DAY, description: 'First day, YYYY-MM-DD' },
          to: { ...DAY, description: 'Last day, YYYY-MM-DD (default today)' },
          interval: { type: 'string', enum: ['month', 'week'], description: 'month (default) or week' },
        },
      },
      response: { 200: REPORT_SCHEMA, ...errorResponses([400, 401, 403]) },
    },
  }, async (request) => analytics.report(request.query as AnalyticsQuery));
}
