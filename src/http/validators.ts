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

/** Validators handed out per app, so a test can compile them all (see compileAllValidators). */
const handedOut = new WeakMap<FastifyInstance, Array<() => ValidateFunction>>();

/**
 * A validator that compiles its schema on its first call. Fastify asks for
 * the validator of every route part while the routes are registered; Ajv
 * generating and compiling all of them (and its meta-schema) made every
 * start slower and larger, though most routes are not called soon after,
 * if at all. (The first request that is validated pays for setting up Ajv
 * instead, once per Ajv below.) The wrapper behaves as
 * the compiled function does: same arguments and result, `errors` of the
 * last call (Fastify reads it after a `false`), and `schemaEnv` (whose
 * presence makes Fastify pass the parent data, so Ajv can coerce or default
 * a root value in place).
 */
function lazyValidator(schema: object, ajv: () => Ajv): { validate: ValidateFunction; compiled: () => ValidateFunction } {
  let fn: ValidateFunction | undefined;
  const compiled = () => (fn ??= ajv().compile(schema));
  const validate = function (this: unknown, data: unknown, dataCxt?: Parameters<ValidateFunction>[1]) {
    return compiled().call(this, data, dataCxt);
  } as ValidateFunction;
  Object.defineProperties(validate, {
    errors: { get: () => compiled().errors, set: (errors: ValidateFunction['errors']) => void (compiled().errors = errors) },
    schemaEnv: { get: () => compiled().schemaEnv },
    schema: { value: schema },
  });
  return { validate, compiled };
}

/**
 * Query strings and path parameters arrive as text, so they are coerced
 * (`?limit=5` is the integer 5). JSON bodies are taken as sent: a string where
 * a number is declared, or a field the schema does not know, is a 400 — never
 * silently converted or dropped.
 */
export function setStrictBodyValidation(app: FastifyInstance): void {
  // Ajv itself (and its formats) is set up on the first compile too.
  let bodies: Ajv | undefined;
  let params: Ajv | undefined;
  const ajvFor = (httpPart: string | undefined) =>
    httpPart === 'body'
      ? (bodies ??= compilerWith({ coerceTypes: false, removeAdditional: false }))
      : (params ??= compilerWith({ coerceTypes: 'array', removeAdditional: false }));
  const pending: Array<() => ValidateFunction> = [];
  handedOut.set(app, pending);
  app.setValidatorCompiler<FastifySchema>(({ schema, httpPart }) => {
    const { validate, compiled } = lazyValidator(schema as object, () => ajvFor(httpPart));
    pending.push(compiled);
    return validate;
  });
}

/**
 * Compiles every validator `app` has handed out so far (call after app.ready()):
 * a schema Ajv rejects would otherwise only fail on the first request of its
 * route, as a 500. Tests call it; the server does not need to.
 */
export function compileAllValidators(app: FastifyInstance): number {
  const pending = handedOut.get(app) ?? [];
  for (const compiled of pending) compiled();
  return pending.length;
}
