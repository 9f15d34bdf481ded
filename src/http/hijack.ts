import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import { rateLimitFields } from './rate-limit.ts';

/**
 * Hands the raw response to code that writes it itself (the MCP transport),
 * carrying over the headers the reply already holds: the security headers,
 * CORS, rate-limit counters and Cache-Control that the hooks set. After
 * reply.hijack() Fastify sends none of them; set on the raw response, Node
 * merges them into the writer's own writeHead(), whose values win.
 */
export function hijackWithHeaders(reply: FastifyReply): ServerResponse {
  // onSend, where the rate-limit fields are written, does not run for a hijacked reply.
  rateLimitFields(reply.request, reply);
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) reply.raw.setHeader(name, value);
  }
  reply.hijack();
  return reply.raw;
}
