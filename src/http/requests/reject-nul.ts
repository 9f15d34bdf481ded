import type { FastifyInstance } from 'fastify';
import { httpError } from '../errors/http-error.ts';

/** The refusal every route answers (400 invalid_request) when a parameter holds a NUL character. */
export const NUL_REFUSAL = 'Parameters must not contain NUL characters';

function holdsNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (depth > 20 || typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some((v) => holdsNul(v, depth + 1));
  for (const key in value) {
    if (key.includes('\u0000') || holdsNul((value as Record<string, unknown>)[key], depth + 1)) return true;
  }
  return false;
}

/**
 * No parameter Lyceum accepts may contain a NUL character: PostgreSQL cannot
 * store one in text, and no legitimate client sends one. Refused up front for
 * every route, so both stores answer the same clear 400.
 */
export function rejectNulCharacters(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    if (holdsNul(request.query) || holdsNul(request.params) || holdsNul(request.body)) {
      done(httpError('invalid_request', NUL_REFUSAL));
    } else done();
  });
}
