import { Ajv, type Options, type ValidateFunction } from 'ajv';
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

/** Bodies are taken as sent; parameters and query strings are coerced from text. */
const COMPILERS = {
  body: compilerWith({ coerceTypes: false, removeAdditional: false }),
  params: compilerWith({ coerceTypes: 'array', removeAdditional: false }),
};

/**
 * Each distinct schema, compiled once per process. Every app builds its
 * routes' schemas afresh (the same declarations, new objects), and Ajv
 * caches by object: a process that builds several apps (the tests start
 * hundreds) would compile the same hundred-odd schemas for each, a third
 * of a second every time. Keyed by the schema's text and the part it checks.
 */
const compiled = new Map<string, ValidateFunction>();

/**
 * Query strings and path parameters arrive as text, so they are coerced
 * (`?limit=5` is the integer 5). JSON bodies are taken as sent: a string where
 * a number is declared, or a field the schema does not know, is a 400 — never
 * silently converted or dropped. Every validator is compiled when its route is
 * registered, so a schema Ajv refuses stops the start.
 */
export function setStrictBodyValidation(app: FastifyInstance): void {
  app.setValidatorCompiler<FastifySchema>(({ schema, httpPart }) => {
    const part = httpPart === 'body' ? 'body' : 'params';
    const key = `${part} ${JSON.stringify(schema)}`;
    let validate = compiled.get(key);
    if (!validate) compiled.set(key, (validate = COMPILERS[part].compile(schema as object)));
    return validate;
  });
}
