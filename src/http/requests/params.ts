/**
 * The parameters of a request part that a route reads and judges itself (the
 * OAuth endpoints, the browser forms, hooks that run for every route): the
 * parsed query string or form as an object of unknown values, or no
 * parameters at all when the part is not an object (an empty or streamed
 * body). Own properties only, so nothing is read from a prototype.
 */
export function paramsOf(part: unknown): Record<string, unknown> {
  return typeof part === 'object' && part !== null && !Array.isArray(part) ? Object.fromEntries(Object.entries(part)) : {};
}

/** One parameter of a request part, as paramsOf reads it. */
export function paramOf(part: unknown, name: string): unknown {
  return typeof part === 'object' && part !== null && !Array.isArray(part) && Object.hasOwn(part, name) ? Object.getOwnPropertyDescriptor(part, name)?.value : undefined;
}
