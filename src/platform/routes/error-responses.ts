/** RFC 6749 §5.2 error body, as every /api/v1 route answers a refusal. */
export const ERROR_SCHEMA = {
  type: 'object',
  description: 'RFC 6749 §5.2 error',
  required: ['error', 'error_description'],
  properties: { error: { type: 'string' }, error_description: { type: 'string' } },
} as const;

/** Response schemas for the error statuses a route can answer with. */
export function errorResponses(codes: readonly number[]): Record<number, unknown> {
  return Object.fromEntries(codes.map((c) => [c, { ...ERROR_SCHEMA, description: `Error (${c})` }]));
}
