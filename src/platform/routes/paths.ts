/** Prefix of every platform API path (the access contract's /api/v1). */
export const API_PREFIX = '/api/v1';
