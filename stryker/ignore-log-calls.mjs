// A Stryker ignorer: no mutants inside calls to a logger (request.log.warn(...),
// app.log.info(...), log.error(...)). What a log line says is for the operator,
// not part of any contract a client sees, and a mutant there can only blank or
// drop what is logged, never add a secret to it (what may be logged at all is
// decided by the redaction in src/http/logging/log-redaction.ts, which is tested).
import { declareValuePlugin, PluginKind } from '@stryker-mutator/api/plugin';

const LEVELS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'fatal']);
const LOGGERS = new Set(['log', 'logger']);

/** Whether a callee names a logger's method: `<x>.log.warn`, `logger.info`, `log.error`. */
function isLogMethod(callee) {
  if (!callee.isMemberExpression()) return false;
  const property = callee.get('property');
  if (!property.isIdentifier() || !LEVELS.has(property.node.name)) return false;
  const object = callee.get('object');
  if (object.isIdentifier()) return LOGGERS.has(object.node.name);
  if (object.isMemberExpression()) {
    const inner = object.get('property');
    return inner.isIdentifier() && LOGGERS.has(inner.node.name);
  }
  return false;
}

export const strykerPlugins = [
  declareValuePlugin(PluginKind.Ignore, 'log-calls', {
    shouldIgnore(path) {
      if (path.isCallExpression() && isLogMethod(path.get('callee'))) {
        return 'What a log line says is for operators, not part of the contract; a mutant can only blank it.';
      }
      return undefined;
    },
  }),
];
