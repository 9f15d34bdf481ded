import type { z } from 'zod';

/**
 * What is wrong with an input, said so that whoever sent it can act on it:
 * an unknown name comes with the closest one the schema takes (or all of
 * them), a date with the form it needs. REST requests and MCP tool calls are
 * checked by the same schemas and answered in the same words.
 */
export function describeIssues(issues: readonly z.core.$ZodIssue[], schema: z.ZodType, what: string, root?: string): string {
  return issues
    .slice(0, 5)
    .map((issue) => describeIssue(issue, schema, what, root))
    .join('; ');
}

function describeIssue(issue: z.core.$ZodIssue, schema: z.ZodType, what: string, root: string | undefined): string {
  const at = [...(root ? [root] : []), ...issue.path.map(String)].join('.');
  if (issue.code === 'unrecognized_keys') {
    const known = knownKeys(schema, issue.path);
    return issue.keys
      .map((key) => {
        const place = at ? ` in ${at}` : '';
        return `unknown ${what} "${key}"${place}${didYouMean(key, known)}${known.length ? ` (takes: ${known.join(', ')})` : ''}`;
      })
      .join('; ');
  }
  if (issue.code === 'invalid_format' && (issue.format === 'datetime' || issue.format === 'date-time')) {
    return `${at}: a date and time with an offset or Z, such as 2026-12-01T18:00:00Z or 2026-12-01T19:00:00+01:00`;
  }
  if (issue.code === 'invalid_type' && issue.input === undefined) return `${at}: required`;
  return at ? `${at}: ${issue.message}` : issue.message;
}

/** The keys the object at `path` takes. */
function knownKeys(schema: z.ZodType, path: PropertyKey[]): string[] {
  let node: unknown = schema;
  for (const key of path) {
    const shape = (node as { shape?: Record<string, unknown> }).shape;
    node = shape?.[String(key)];
    // An optional or nullable object wraps the object itself.
    while (node && (node as { unwrap?: () => unknown }).unwrap && !(node as { shape?: unknown }).shape) node = (node as { unwrap: () => unknown }).unwrap();
  }
  const shape = (node as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape ? Object.keys(shape) : [];
}

/** `; did you mean "x"?` for the known name nearest to `name`, or nothing when none is near. */
export function didYouMean(name: string, known: readonly string[]): string {
  const near = closest(name, known);
  return near ? `; did you mean "${near}"?` : '';
}

/** The known name nearest to `name` (edit distance at most a third of its length), or one containing it. */
export function closest(name: string, known: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const k of known) {
    const distance = editDistance(lower, k.toLowerCase());
    if (!best || distance < best.distance) best = { name: k, distance };
  }
  if (best && best.distance <= Math.max(1, Math.floor(name.length / 3))) return best.name;
  return known.find((k) => k.includes(lower) || lower.includes(k));
}

function editDistance(a: string, b: string): number {
  let prev: number[] = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row: number[] = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}
