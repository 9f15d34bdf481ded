import type { z } from 'zod';
import { describeIssues } from '../http/requests/input-issues.ts';
import { PlatformError } from '../platform/errors.ts';

/** A tool's arguments checked against its input, with errors an agent can act on (input-issues.ts). */
export function checkArguments<T>(schema: z.ZodType<T>, args: unknown, what = 'argument'): T {
  // The issues keep the input so that a missing argument is told from a wrong one; it goes nowhere else.
  const parsed = schema.safeParse(args ?? {}, { reportInput: true });
  if (parsed.success) return parsed.data;
  throw new PlatformError('invalid_request', describeIssues(parsed.error.issues, schema, what));
}
