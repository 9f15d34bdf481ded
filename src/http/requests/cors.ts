import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import { inPathSet, type PathSet } from './path-set.ts';

/** What a browser-based client may send and read on the open paths; no cookies are used there. */
const OPEN: FastifyCorsOptions = {
  origin: '*',
  methods: ['GET', 'POST', 'OPTIONS'],
  allowedHeaders: ['Authorization', 'Content-Type', 'MCP-Protocol-Version'],
  // One string rather than a list: the plugin joins a list again on every response.
  exposedHeaders: 'WWW-Authenticate',
  maxAge: 86_400,
};

/**
 * CORS (@fastify/cors) for the paths browser-based clients call cross-origin,
 * and for no other: the decision is made once per route, when it is
 * registered, rather than per request (a per-request delegator makes the
 * plugin rebuild its options on every request). Every other route is marked
 * `cors: false`; so is the plugin's catch-all OPTIONS route, so a preflight
 * for a browser page finds no CORS headers and gets a 404. Each open path gets
 * an OPTIONS route of its own, which the plugin's hook answers (Fetch
 * standard, CORS-preflight fetch).
 */
export async function registerCors(app: FastifyInstance, paths: PathSet): Promise<void> {
  app.addHook('onRoute', (route) => {
    // @fastify/cors reads `config.cors === false` as "not on this route"; its types do not declare the key.
    if (!inPathSet(paths, route.url)) route.config = { ...route.config, cors: false } as typeof route.config;
  });
  await app.register(cors, OPEN);
  // The plugin's onRequest hook sends the preflight answer; the handler runs only for a plain OPTIONS request.
  const preflightOnly = { schema: { hide: true } };
  for (const url of [...paths.exact, ...paths.prefixes.map((p) => `${p}*`)]) {
    app.options(url, preflightOnly, (_request, reply) => reply.callNotFound());
  }
}
