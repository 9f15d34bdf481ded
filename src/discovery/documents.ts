import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps.ts';

/** /auth.md, /llms.txt and /pricing.md: generated from the registries and live data. */
export function registerDocumentRoutes(_app: FastifyInstance, _deps: Deps): void {}
