/**
 * The production server as one ES module plus lazily loaded chunks:
 * `node dist/lyceum.js serve`. `npm run build` runs it (`npm run typecheck`
 * checks the types; esbuild only strips them).
 *
 * Why: the start of the server was dominated by loading hundreds of ES
 * modules one file at a time (Kysely, zod and jose are each made of many),
 * each resolved, read, compiled and linked on its own. esbuild puts what
 * `serve` needs in a few files that Node compiles in one go, and moves what
 * is only reached through import() (the MCP SDK, the Redis client, the
 * other CLI commands) into chunks that are read when first used. The server
 * answers sooner after start and holds less memory; BENCHMARKS.md has the
 * current figures.
 *
 * esbuild is a devDependency for this script only (tsx already brought it in).
 */
import { rmSync } from 'node:fs';
import { build } from 'esbuild';
import { BUNDLE_OPTIONS } from './bundle-options.ts';

const OUT = 'dist';

// Chunk names carry a content hash: without this, every build would leave the previous ones behind.
rmSync(OUT, { recursive: true, force: true });

await build({
  ...BUNDLE_OPTIONS,
  entryPoints: { lyceum: 'src/cli/main.ts' },
  outdir: OUT,
  chunkNames: 'chunks/[name]-[hash]',
});
