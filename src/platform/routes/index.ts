import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.ts';
import { RecordService } from '../records.ts';
import { registerRecordRoutes } from './records-routes.ts';

/** Every /api/v1 route: the generic area routes, then the areas with routes of their own. */
export function registerPlatformRoutes(app: FastifyInstance, deps: Deps): void {
  const records = new RecordService(deps);
  registerRecordRoutes(app, deps, records);
}
