/**
 * The page sizes of the /api/v1 lists, declared once: the list schemas, the
 * services that clamp a size and /auth.md's table of limits read them.
 */
export const PAGE_SIZE = {
  min: 1,
  max: 100,
  /** A records list's size when `limit` is not given; more pages through next_cursor. */
  records: 20,
  /** The files list's size when `limit` is not given; it has no further pages. */
  files: 50,
} as const;

/** A requested size within the bounds. */
export const clampPageSize = (limit: number): number => Math.min(Math.max(limit, PAGE_SIZE.min), PAGE_SIZE.max);
