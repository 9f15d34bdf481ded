// ESLint (`npm run lint`, run in CI): the recommended rules of ESLint and of
// typescript-eslint, without type information so a run takes seconds (tsc
// already type-checks the tree in `npm run typecheck`), plus a few rules that
// catch real bugs.
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  globalIgnores(['dist/', 'reports/', 'data/', 'test-results/', '.stryker-tmp/', '.ab/']),
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    rules: {
      // `==` coerces types (`'0' == 0`); `== null` stays allowed as the check for null or undefined.
      eqeqeq: ['error', 'smart'],
      // `'${x}'` in a plain string is a template literal written with the wrong quotes.
      'no-template-curly-in-string': 'error',
      // `x === x` is always true except for NaN: a typo for another name, or Number.isNaN spelled badly.
      'no-self-compare': 'error',
      // A loop that always exits on its first pass is an `if`, or a misplaced return/break.
      'no-unreachable-loop': 'error',
      // A map/filter/find callback that forgets to return gives undefined for every element.
      'array-callback-return': 'error',
      // `const { dropped, ...rest } = o` is how the code leaves a property out of a copy.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
    },
  },
  {
    // Node.js globals for the few plain JavaScript files (bin/, this file); in TypeScript tsc checks names.
    files: ['**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  {
    // The SQLite maintenance thread's module (src/store/sqlite/maintenance-worker.cjs), loaded by a worker as CommonJS.
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', setInterval: 'readonly', clearInterval: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The OpenAPI tests walk a parsed JSON document of any shape.
    files: ['test/discovery/openapi.test.ts', 'test/discovery/openapi-lint.test.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
