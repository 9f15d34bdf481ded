/**
 * The bench's reference servers (bench/bare-server.ts, stack-server.ts,
 * floor-server.ts) built the way Lyceum's production server is
 * (scripts/bundle-options.ts) into dist/bench/, and run as plain JavaScript
 * like dist/lyceum.js. Run through tsx they would carry its loader and
 * transpiler in memory: about 40 MB more resident memory than the same
 * server built, which would make the references look heavier than Lyceum.
 */
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { BUNDLE_OPTIONS } from '../scripts/bundle-options.ts';

const ROOT = resolve(import.meta.dirname, '..');
export const REFERENCE_DIR = join(ROOT, 'dist/bench');

export const REFERENCE_SERVERS = ['bare-server', 'stack-server', 'floor-server'] as const;
export type ReferenceServer = (typeof REFERENCE_SERVERS)[number];

export async function buildReferenceServers(): Promise<void> {
  rmSync(REFERENCE_DIR, { recursive: true, force: true });
  await build({
    ...BUNDLE_OPTIONS,
    entryPoints: Object.fromEntries(REFERENCE_SERVERS.map((name) => [name, join(import.meta.dirname, `${name}.ts`)])),
    outdir: REFERENCE_DIR,
    chunkNames: 'chunks/[name]-[hash]',
  });
}

export const referenceServerFile = (name: ReferenceServer) => join(REFERENCE_DIR, `${name}.js`);
