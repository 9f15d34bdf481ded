import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.ts';
import { RecordService } from '../records.ts';
import { registerAccountRoutes } from './account-routes.ts';
import { registerAnalyticsRoutes } from './analytics-routes.ts';
import { registerAppearanceRoutes } from './appearance-routes.ts';
import { registerCurriculumRoutes } from './curriculum-routes.ts';
import { registerRecordRoutes } from './records-routes.ts';
import { registerSchoolRoutes } from './school-routes.ts';
import { registerStorageRoutes } from './storage-routes.ts';

/** Every /api/v1 route: the generic area routes, then the areas with routes of their own. */
export function registerPlatformRoutes(app: FastifyInstance, deps: Deps): void {
  const records = new RecordService(deps);
  registerRecordRoutes(app, deps, records);
  registerSchoolRoutes(app, deps);
  registerAppearanceRoutes(app, deps);
  registerCurriculumRoutes(app, deps, records);
  registerStorageRoutes(app, deps);
  registerAnalyticsRoutes(app, deps);
  registerAccountRoutes(app, deps, records);
}
