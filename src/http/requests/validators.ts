import { Ajv, type Options } from 'ajv';
import formats, { type FormatsPlugin } from 'ajv-formats';
import type { FastifyInstance, FastifySchema } from 'fastify';

const COMMON: Options = { allErrors: false, useDefaults: true, strict: false, messages: true };

function compilerWith(options: Options) {
  const ajv = new Ajv({ ...COMMON, ...options });
  // ajv-formats is CommonJS: its plugin is the module's default export.
  const addFormats = (formats as unknown as { default?: FormatsPlugin }).default ?? (formats as unknown as FormatsPlugin);
  addFormats(ajv);
  return ajv;
}

/**
 * Query strings and path parameters arrive as text, so they are coerced
 * (`?limit=5` is the integer 5). JSON bodies are taken as sent: a string where
 * a number is declared, or a field the schema does not know, is a 400 — never
 * silently converted or dropped.
 */
export function setStrictBodyValidation(app: FastifyInstance): void {
  const bodies = compilerWith({ coerceTypes: false, removeAdditional: false });
  const params = compilerWith({ coerceTypes: 'array', removeAdditional: false });
  app.setValidatorCompiler<FastifySchema>(({ schema, httpPart }) => (httpPart === 'body' ? bodies : params).compile(schema as object));
}
