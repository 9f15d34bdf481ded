/**
 * What `lyceum serve` makes Node compile at start, in the production bundle
 * (scripts/bundle.ts): the entry, the serve command's chunk and what they
 * import statically. What only some servers need is imported when they use
 * it and must stay out of it: the PostgreSQL and Redis clients, the other
 * CLI commands, and prom-client, which only a server with METRICS_PORT
 * loads.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { BUNDLE_OPTIONS } from '../../scripts/bundle-options.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(ROOT, 'node_modules', '.start-graph-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The outputs Node loads for `serve` before its first request: static imports from the entry and the serve chunk. */
function loadedAtStart(meta: Metafile): string[] {
  const outputs = meta.outputs;
  const entry = Object.keys(outputs).find((o) => outputs[o]!.entryPoint === 'src/cli/main.ts')!;
  const serve = Object.keys(outputs).find((o) => outputs[o]!.entryPoint === 'src/cli/serve.ts')!;
  expect(entry, 'the entry').toBeDefined();
  expect(serve, 'the serve command is a chunk of its own, imported when it runs').toBeDefined();
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const i of outputs[file]!.imports) if (i.kind === 'import-statement' && !i.external) visit(i.path);
  };
  visit(entry);
  visit(serve);
  return [...seen];
}

describe('the modules `lyceum serve` loads at start', () => {
  it('hold the server and none of what only some servers load', async () => {
    const result = await build({ ...BUNDLE_OPTIONS, entryPoints: { lyceum: 'src/cli/main.ts' }, outdir: dir, chunkNames: 'chunks/[name]-[hash]', metafile: true, write: false, sourcemap: false });
    const files = loadedAtStart(result.metafile);
    const inputs = files.flatMap((f) => Object.keys(result.metafile.outputs[f]!.inputs));
    const packages = new Set(inputs.map((i) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(i)?.[1]).filter(Boolean));

    // The server itself is there: Fastify, Kysely, the SQLite driver's wrapper, zod, the MCP server.
    for (const p of ['fastify', 'kysely', 'zod', 'jose', 'pino', '@modelcontextprotocol/server']) expect(packages, p).toContain(p);
    expect(inputs).toContain('src/app.ts');
    expect(inputs).toContain('src/mcp/tools/index.ts');

    for (const p of ['@modelcontextprotocol/sdk', 'pg', 'ioredis', 'prom-client', 'zod-to-json-schema', 'light-my-request']) expect(packages, p).not.toContain(p);
    expect(inputs.filter((i) => /^src\/cli\/(clients|keys|seed)\.ts$/.test(i))).toEqual([]);
  });
});
