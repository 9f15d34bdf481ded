import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.ts';
import { registerIdempotency } from '../idempotency.ts';
import { RecordService } from '../records.ts';
import { registerAccountRoutes } from './account-routes.ts';
import { registerAnalyticsRoutes } from './analytics-routes.ts';
import { registerAppearanceRoutes } from './appearance-routes.ts';
import { registerCurriculumRoutes } from './curriculum-routes.ts';
import { registerEnrollByEmailRoutes } from '../progress/enroll-by-email-routes.ts';
import { registerProgressRoutes } from '../progress/progress-routes.ts';
import { registerRecordRoutes } from './records-routes.ts';
import { registerSchoolRoutes } from './school-routes.ts';
import { registerStorageRoutes } from '../files/storage-routes.ts';
import { registerWebhookRoutes } from '../webhooks/routes.ts';
import { registerActivityRoutes } from '../activity/activity-routes.ts';

/**
 * Every /api/v1 route: the generic area routes, then the areas with routes of
 * their own. The JSON API takes JSON (and multipart uploads): an HTML form
 * posted here gets 415, so no cross-site form can write through it. Every
 * POST honours an Idempotency-Key (../idempotency.ts).
 */
export function registerPlatformRoutes(app: FastifyInstance, deps: Deps): void {
  void app.register(async (api) => {
    api.removeContentTypeParser('application/x-www-form-urlencoded');
    // Before the routes, so that every POST among them gets it.
    registerIdempotency(api, deps);
    const records = new RecordService(deps);
    registerRecordRoutes(api, deps, records);
    registerSchoolRoutes(api, deps);
    registerAppearanceRoutes(api, deps);
    registerCurriculumRoutes(api, deps, records);
    registerStorageRoutes(api, deps);
    registerAnalyticsRoutes(api, deps);
    registerAccountRoutes(api, deps, records);
    registerProgressRoutes(api, deps, records);
    registerEnrollByEmailRoutes(api, deps, records);
    registerWebhookRoutes(api, deps);
    registerActivityRoutes(api, deps);
  });
}
