import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import type { Deps } from '../../deps.ts';
import { documented, errorResponses } from '../../http/routes/route-docs.ts';
import { declareRoute } from '../../resource/declare-route.ts';
import { PAGE_SIZE } from '../page-size.ts';
import { API_PREFIX } from '../routes/paths.ts';
import { contentDisposition } from '../routes/send-file.ts';
import { ActivityLog, activityEntrySchema, activityFilters } from './activity-log.ts';

/** The scope that reads the school's whole log; only the owner and admin roles can hold it (docs/decisions.md). */
export const ACTIVITY_SCOPE = 'school:read';

export const ACTIVITY_PATH = `${API_PREFIX}/activity`;

/** GET /api/v1/activity and its export: who did what, through which app. */
export function registerActivityRoutes(app: FastifyInstance, deps: Deps): void {
  const log = new ActivityLog(deps);
  const tags = ['activity'];

  declareRoute(
    app,
    deps,
    {
      method: 'GET',
      path: ACTIVITY_PATH,
      operationId: 'listActivity',
      scopes: [ACTIVITY_SCOPE],
      schema: {
        tags,
        summary: 'List the activity log',
        description:
          'Every write through the API or MCP and every security event (sign-in, failed sign-in, consent given, narrowed or extended, app disconnected, password changed, token revoked), newest first: when, who, through which app, which operation, which record and which fields (names, never values).',
        querystring: z.object({
          limit: z.coerce.number().int().min(PAGE_SIZE.min).max(PAGE_SIZE.max).default(PAGE_SIZE.records).describe('Page size'),
          cursor: z.string().max(200).optional().describe('next_cursor of the previous page'),
          ...activityFilters.shape,
        }),
        response: { 200: z.object({ data: z.array(activityEntrySchema), next_cursor: z.string().optional() }), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request) => {
      const { limit, cursor, ...filters } = request.query;
      return log.list(filters, limit, cursor);
    },
  );

  declareRoute(
    app,
    deps,
    {
      method: 'GET',
      path: `${ACTIVITY_PATH}/export`,
      operationId: 'exportActivity',
      scopes: [ACTIVITY_SCOPE],
      schema: {
        tags,
        summary: 'Export the activity log',
        description: 'Every entry the filters match, newest first, as one CSV file (a header row, then one row per entry) or one JSON array of the entries listActivity shows.',
        querystring: z.object({ format: z.enum(['csv', 'json']).default('csv').describe('csv (default) or json'), ...activityFilters.shape }),
        response: { 200: documented(z.string(), 'The entries, streamed'), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request, reply) => {
      const { format, ...filters } = request.query;
      const body = log.export(filters, format);
      const day = new Date(deps.now()).toISOString().slice(0, 10);
      // The reply's send is typed by the documented string; a stream is what carries it.
      const untyped: FastifyReply = reply;
      return untyped
        .type(format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8')
        .header('content-disposition', contentDisposition('attachment', `activity-${day}.${format}`))
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'no-store')
        .send(body);
    },
  );
}
