import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';

/**
 * Hands the raw response to code that writes it itself (the MCP transport),
 * carrying over the headers the reply already holds: the security headers,
 * CORS, rate-limit counters and Cache-Control that the hooks set. After
 * reply.hijack() Fastify sends none of them; set on the raw response, Node
 * merges them into the writer's own writeHead(), whose values win.
 */
export function hijackWithHeaders(reply: FastifyReply): ServerResponse {
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) reply.raw.setHeader(name, value);
  }
  reply.hijack();
  return reply.raw;
}
