/** Prefix of every platform API path (/api/v1, as /auth.md and /openapi.json list it). */
export const API_PREFIX = '/api/v1';
