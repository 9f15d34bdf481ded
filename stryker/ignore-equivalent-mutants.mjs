// A Stryker ignorer: no mutants where a change cannot be seen from outside
// (an equivalent mutant), as listed in stryker/equivalent-mutants.json: the
// file, the line's code as written, the mutators it is kept from, and why;
// where the line holds more than one node those mutators change, `node` is
// the one meant, as written.
// A listed line that no longer exists as written, or exists twice, stops the
// run, so the list cannot silently outlive the code it describes.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import process from 'node:process';
import { URL } from 'node:url';
import { declareValuePlugin, PluginKind } from '@stryker-mutator/api/plugin';

const LIST = JSON.parse(readFileSync(new URL('./equivalent-mutants.json', import.meta.url), 'utf8'));

/** The nodes each mutator changes: a listed line ignores only those nodes of its mutators. */
const MUTATED_BY = {
  StringLiteral: (p) => p.isStringLiteral() || p.isTemplateLiteral(),
  BooleanLiteral: (p) => p.isBooleanLiteral() || (p.isUnaryExpression() && p.node.operator === '!'),
  ConditionalExpression: (p) => p.isExpression() && (p.parentPath?.isIfStatement() || p.parentPath?.isConditionalExpression()) && p.key === 'test',
  LogicalOperator: (p) => p.isLogicalExpression(),
  ArithmeticOperator: (p) => p.isBinaryExpression() && ['+', '-', '*', '/', '%'].includes(p.node.operator),
  EqualityOperator: (p) => p.isBinaryExpression() && ['<', '<=', '>', '>=', '==', '===', '!=', '!=='].includes(p.node.operator),
  MethodExpression: (p) => p.isCallExpression() || p.isOptionalCallExpression(),
  OptionalChaining: (p) => p.isOptionalMemberExpression() || p.isOptionalCallExpression(),
  ObjectLiteral: (p) => p.isObjectExpression(),
  ArrayDeclaration: (p) => p.isArrayExpression(),
  ArrowFunction: (p) => p.isArrowFunctionExpression(),
  BlockStatement: (p) => p.isBlockStatement(),
};

/** Per file: the line number of each listed line, with its entry. */
const byFile = new Map();

function linesOf(file, code) {
  const name = relative(process.cwd(), file);
  if (!byFile.has(name)) {
    const lines = code.split('\n').map((l) => l.trim());
    const listed = new Map();
    for (const entry of LIST.filter((e) => e.file === name)) {
      const at = lines.flatMap((l, i) => (l === entry.line ? [i + 1] : []));
      if (at.length !== 1) throw new Error(`stryker/equivalent-mutants.json: "${entry.line}" is in ${name} ${at.length} times, not once; update the list`);
      listed.set(at[0], entry);
    }
    byFile.set(name, listed);
  }
  return byFile.get(name);
}

export const strykerPlugins = [
  declareValuePlugin(PluginKind.Ignore, 'equivalent-mutants', {
    shouldIgnore(path) {
      const file = path.hub?.file;
      const line = path.node.loc?.start.line;
      if (!file?.opts?.filename || line === undefined) return undefined;
      const entry = linesOf(file.opts.filename, file.code).get(line);
      if (!entry) return undefined;
      // Where the line holds several such nodes, `node` names the one meant, as written.
      if (entry.node !== undefined && file.code.slice(path.node.start, path.node.end) !== entry.node) return undefined;
      return entry.mutators.some((m) => MUTATED_BY[m]?.(path)) ? entry.why : undefined;
    },
  }),
];
