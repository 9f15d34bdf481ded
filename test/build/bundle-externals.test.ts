/**
 * Lyceum's bundle options (scripts/bundle-options.ts) through esbuild:
 * light-my-request, which the server never calls, is left out of the
 * bundle; it, yaml and zod all answer when the bundled code reaches them.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { BUNDLE_OPTIONS } from '../../scripts/bundle-options.ts';

const ROOT = resolve(import.meta.dirname, '../..');
// Inside the project, so the bundled file finds node_modules as dist/ does.
const dir = mkdtempSync(join(ROOT, 'node_modules', '.bundle-externals-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the bundle leaves light-my-request in node_modules', () => {
  it('is not compiled into the output; it and yaml answer when used', async () => {
    const entry = join(dir, 'entry.ts');
    // As @fastify/swagger and Fastify use them: yaml required as the module loads, light-my-request on first use.
    writeFileSync(
      entry,
      ["import yaml from 'yaml';", 'export const dump = (value: unknown) => yaml.stringify(value);', "export const inject = async () => (await import('light-my-request')).default;"].join('\n'),
    );
    await build({ ...BUNDLE_OPTIONS, entryPoints: { out: entry }, outdir: dir, logLevel: 'silent' });
    const code = readFileSync(join(dir, 'out.js'), 'utf8');
    expect(code).not.toMatch(/node_modules\/light-my-request\//);

    const out = (await import(pathToFileURL(join(dir, 'out.js')).href)) as { dump: (v: unknown) => string; inject: () => Promise<unknown> };
    expect(out.dump({ openapi: '3.1.0' })).toBe('openapi: 3.1.0\n');
    expect(typeof (await out.inject())).toBe('function');
  });
});

describe('zod in the bundle', () => {
  it('zod/mini checks and zod answer, in English', async () => {
    const out = join(dir, 'zod');
    const entry = join(dir, 'zod-entry.ts');
    // As the configuration (zod/mini) and the MCP tools (zod) use it.
    writeFileSync(
      entry,
      [
        "import { object, regex, string } from 'zod/mini';",
        "const schema = object({ PORT: string().check(regex(/^\\d+$/, 'must be a whole number')) });",
        'export const check = (value: string) => schema.safeParse({ PORT: value });',
        "export const full = async () => (await import('zod')).z;",
      ].join('\n'),
    );
    await build({ ...BUNDLE_OPTIONS, entryPoints: { out: entry }, outdir: out, logLevel: 'silent' });

    const mod = (await import(pathToFileURL(join(out, 'out.js')).href)) as {
      check: (v: string) => { success: boolean; data?: unknown; error?: { issues: { message: string }[] } };
      full: () => Promise<typeof import('zod').z>;
    };
    expect(mod.check('3000')).toMatchObject({ success: true, data: { PORT: '3000' } });
    expect(mod.check('port').error?.issues[0]?.message).toBe('must be a whole number');
    const z = await mod.full();
    expect(z.object({ limit: z.number().int().min(1) }).safeParse({ limit: 0 }).error?.issues[0]?.message).toMatch(/^Too small: expected number to be >=1$/);
  });
});
