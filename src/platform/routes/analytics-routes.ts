import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Deps } from '../../deps.ts';
import { AnalyticsService } from '../analytics.ts';
import { INTERVALS } from '../analytics-periods.ts';
import { errorResponses } from '../../http/routes/route-docs.ts';
import { declareRoute } from '../../resource/declare-route.ts';
import { API_PREFIX } from './paths.ts';

const DAY = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const ISO_DATE = z.iso.date();

const point = <T extends z.ZodRawShape>(figure: T, description: string) => z.array(z.object({ period: z.string().describe('YYYY-MM, or YYYY-Www for ISO weeks'), ...figure })).describe(description);
const COUNT = { count: z.int() };

const REPORT_SCHEMA = z.object({
  currency: z.string().describe("The school's currency; revenue is in its minor units"),
  interval: z.enum(INTERVALS),
  from: ISO_DATE,
  to: ISO_DATE,
  enrollments: point(COUNT, 'Enrollments created per period'),
  revenue: point({ total_cents: z.int() }, "Paid orders per period (by paid_at), in the school's currency"),
  active_students: point(COUNT, 'Distinct students with an enrollment created or an order paid in the period'),
  lessons_completed: point(COUNT, 'Lesson completions per period (by completion time; an undone completion no longer counts)'),
  enrollments_completed: point(COUNT, 'Enrollments whose last lesson was completed in the period (and still are complete)'),
  totals: z
    .object({
      students: z.int(),
      courses_published: z.int(),
      enrollments: z.int(),
      revenue_cents: z.int(),
      active_subscriptions: z.int(),
      lessons_completed: z.int(),
      enrollments_completed: z.int(),
      average_progress_percent: z.int().nullable().describe('Mean progress_percent of the enrollments created in the range, rounded; null when there are none'),
    })
    .describe('enrollments, revenue_cents, lessons_completed, enrollments_completed and average_progress_percent over the range; the others as they are now'),
});

/** GET /api/v1/analytics: enrollment, revenue and activity figures. */
export function registerAnalyticsRoutes(app: FastifyInstance, deps: Deps): void {
  const analytics = new AnalyticsService(deps);

  declareRoute(
    app,
    deps,
    {
      method: 'GET',
      path: `${API_PREFIX}/analytics`,
      operationId: 'getAnalytics',
      scopes: ['analytics:read'],
      schema: {
        tags: ['analytics'],
        summary: 'Read the school analytics',
        description:
          'Series per month or ISO week (UTC) between from and to (inclusive days; default the last twelve calendar months up to today). Ranges longer than five years, or from after to, are 400.',
        querystring: z.object({
          from: DAY.optional().describe('First day, YYYY-MM-DD'),
          to: DAY.optional().describe('Last day, YYYY-MM-DD (default today)'),
          interval: z.enum(INTERVALS).optional().describe('month (default) or week'),
        }),
        response: { 200: REPORT_SCHEMA, ...errorResponses([400, 401, 403]) },
      },
    },
    async (request) => analytics.report(request.query),
  );
}
