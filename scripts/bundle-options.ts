/**
 * How Lyceum's code is bundled for running (scripts/bundle.ts for the server,
 * bench/servers.ts for the bench's bare Fastify reference): one set of
 * esbuild options, so what the bench compares Lyceum with is built the same way.
 */
import type { BuildOptions } from 'esbuild';

export const BUNDLE_OPTIONS = {
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  // Native addons load their .node files from node_modules at run time, so they stay there.
  // pg-native is pg's optional native driver, which Lyceum neither uses nor installs.
  // light-my-request is Fastify's inject(), which the server never calls: Fastify requires it
  // only on inject()'s first call, so left in node_modules it is never compiled at start.
  external: ['better-sqlite3', '@node-rs/argon2', 'pg-native', 'light-my-request'],
  // CommonJS dependencies (Fastify, pino, pg, ...) call require() for Node's built-ins;
  // an ES module has no require of its own, so each output file makes one.
  banner: { js: "import { createRequire as __lyceumCreateRequire } from 'node:module';\nconst require = __lyceumCreateRequire(import.meta.url);" },
  // Not minified: stack traces in the log stay readable (function names, one statement per line).
  // The maps let `node --enable-source-maps` point them at src/.
  sourcemap: true,
  logLevel: 'warning',
} satisfies BuildOptions;
