import type { z } from 'zod';

/**
 * A PATCH body: the object's fields, of which it names one at least. An
 * empty change is refused rather than answered as a success that changed
 * nothing; /openapi.json says so as `minProperties: 1`.
 */
export function patchBody<T extends z.ZodObject>(object: T) {
  return object.refine((body) => Object.keys(body).length > 0, 'name at least one field to change').meta({ minProperties: 1 });
}
