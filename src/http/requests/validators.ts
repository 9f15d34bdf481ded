import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import { describeIssues } from './input-issues.ts';

/** How the message names each part of a request, and what it calls a name in it. */
const PARTS: Record<string, { root: string; what: string }> = {
  body: { root: 'body', what: 'field' },
  querystring: { root: 'query', what: 'query parameter' },
  params: { root: 'path', what: 'path parameter' },
  headers: { root: 'header', what: 'header' },
};

/**
 * Every request part a route declares is checked by its zod schema, the same
 * schema /openapi.json shows and the MCP tools take. Query strings and path
 * parameters arrive as text, so their schemas coerce where they declare a
 * number (`?limit=5` is the integer 5). JSON bodies are taken as sent: a
 * string where a number is declared, or a field the schema does not know, is
 * a 400, never silently converted or dropped. The refusal names what is wrong
 * in the words the MCP tools use (input-issues.ts), which the type provider's
 * own compiler cannot, as its errors no longer hold the schema.
 */
export function setRequestValidation(app: FastifyInstance): void {
  app.setValidatorCompiler<z.ZodType>(({ schema, httpPart }) => {
    const part = PARTS[String(httpPart)];
    // Fastify names one of the four parts; anything else is a change of Fastify's to notice at start.
    if (!part) throw new Error(`No request part named ${String(httpPart)}`);
    const { root, what } = part;
    return (data) => {
      // The issues keep the input so that a missing value is told from a wrong one; it goes nowhere else.
      const parsed = schema.safeParse(data, { reportInput: true });
      if (parsed.success) return { value: parsed.data };
      return { error: new Error(describeIssues(parsed.error.issues, schema, what, root)) };
    };
  });
}
