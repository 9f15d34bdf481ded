/**
 * scripts/lazy-modules.ts, through esbuild with Lyceum's bundle options: the
 * modules it keeps out of the bundle are left out, and still work when the
 * bundled code reaches them.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { BUNDLE_OPTIONS } from '../../scripts/bundle-options.ts';

const ROOT = resolve(import.meta.dirname, '../..');
// Inside the project, so the bundled file finds node_modules as dist/ does.
const dir = mkdtempSync(join(ROOT, 'node_modules', '.lazy-modules-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the bundle leaves yaml and light-my-request in node_modules', () => {
  it('neither is compiled into the output, and both answer when used', async () => {
    const entry = join(dir, 'entry.ts');
    // As @fastify/swagger and Fastify use them: yaml required as the module loads, light-my-request on first use.
    writeFileSync(
      entry,
      [
        "import yaml from 'yaml';",
        'export const dump = (value: unknown) => yaml.stringify(value);',
        "export const inject = async () => (await import('light-my-request')).default;",
      ].join('\n'),
    );
    await build({ ...BUNDLE_OPTIONS, entryPoints: { out: entry }, outdir: dir, logLevel: 'silent' });
    const code = readFileSync(join(dir, 'out.js'), 'utf8');
    // yaml's own sources (its Document and Lexer classes) and light-my-request's are not in the bundle.
    expect(code).not.toMatch(/class Lexer|class Document\b/);
    expect(code).not.toMatch(/node_modules\/(yaml|light-my-request)\//);

    const out = (await import(pathToFileURL(join(dir, 'out.js')).href)) as { dump: (v: unknown) => string; inject: () => Promise<unknown> };
    expect(out.dump({ openapi: '3.1.0' })).toBe('openapi: 3.1.0\n');
    expect(typeof (await out.inject())).toBe('function');
  });
});
