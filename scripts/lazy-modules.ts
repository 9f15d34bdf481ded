/**
 * Two dependencies that Lyceum's server never calls are kept out of the
 * bundle, so Node does not compile them on every start (scripts/bundle.ts):
 *
 * - `light-my-request`, Fastify's `inject()`. Fastify requires it
 *   only when inject() is first called, so it stays in node_modules and is
 *   read from there if that ever happens.
 * - `yaml`, which @fastify/swagger requires as it loads but calls
 *   only to answer a YAML document. Lyceum serves /openapi.json, so the
 *   bundle gets a stand-in whose first property read requires the real
 *   module from node_modules.
 *
 * Both are large, and the server answers its first request sooner
 * without them.
 *
 * And one part of a dependency that nothing calls is left out altogether:
 * zod's catalogue of translated messages (dozens of languages), which
 * zod re-exports as `locales` from its core and both of its builds. The
 * configuration's checks each say their own message, and the MCP tools' zod
 * imports its English messages directly, so nothing reads the catalogue; yet
 * through the core, which the configuration's zod/mini and the lazily loaded
 * MCP zod share, it was compiled and run at every start. In
 * the bundle `locales` is an empty module.
 */
import type { Plugin } from 'esbuild';

const STAND_IN = 'lazy-module';
const EMPTY = 'empty-module';

export const lazyModules: Plugin = {
  name: 'lazy-modules',
  setup(build) {
    build.onResolve({ filter: /^light-my-request$/ }, ({ path }) => ({ path, external: true }));
    // The stand-in's own require('yaml') is the real module, left in node_modules.
    build.onResolve({ filter: /^yaml$/ }, ({ path, namespace }) => (namespace === STAND_IN ? { path, external: true } : { path, namespace: STAND_IN }));
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, ({ path, importer }) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(importer) ? { path, namespace: EMPTY } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: EMPTY }, () => ({ contents: 'export {};\n', loader: 'js' }));
    build.onLoad({ filter: /.*/, namespace: STAND_IN }, ({ path }) => ({
      contents: `let loaded;\nmodule.exports = new Proxy({}, { get: (_, name) => (loaded ??= require(${JSON.stringify(path)}))[name] });\n`,
      loader: 'js',
    }));
  },
};
