import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

/**
 * The suite as Stryker runs it (stryker.config.json): only the tests that
 * exercise the security core. Left out: the production build and bundle
 * (test/build), the bench's request scripts (test/bench), many-instance and
 * rate-limit scaling (test/scale), the CLI's child processes (test/cli),
 * store internals (test/store), settings and generated documents
 * (test/config, test/discovery), and log plumbing (test/http, but for request validation). They kill no
 * mutant of the core and would multiply the run's length. The Inspector CLI
 * and mcp-remote tests are left out too: they run those clients as child
 * processes from node_modules, which Stryker's sandbox does not provide, and
 * what they reach of the core the in-process MCP client tests reach as well. Stryker's vitest
 * runner sets its own pool (one thread) whatever is set here. (Not
 * mergeConfig: it would append this include list to the base one.)
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: [
      'test/oauth/**/*.test.ts',
      'test/oidc/**/*.test.ts',
      'test/resource/**/*.test.ts',
      'test/web/**/*.test.ts',
      'test/mcp/**/*.test.ts',
      'test/platform/**/*.test.ts',
      'test/e2e/**/*.test.ts',
      // The outbound address check and its lookup bound are in the core.
      'test/util/**/*.test.ts',
      // Request validation is in the core.
      'test/http/validators.test.ts',
    ],
    exclude: [
      ...(base.test?.exclude ?? ['**/node_modules/**']),
      'test/platform/demo-seed.test.ts',
      'test/e2e/browser-*.test.ts',
      'test/mcp/mcp-inspector-cli.test.ts',
      'test/mcp/mcp-remote.test.ts',
      'test/mcp/mcp-remote-device.test.ts',
    ],
    isolate: false,
  },
});
