/**
 * The import graph between the top-level units of a source tree: each folder
 * directly under it, and each file directly in it (deps.ts, app.ts, server.ts).
 * Every relative import, export-from and import() counts, type-only ones too:
 * a type import still ties one unit's meaning to another's.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/** One import of one unit by another: `from` imports `to`, as `file` → `target` shows. */
export interface UnitImport {
  from: string;
  to: string;
  file: string;
  target: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|js|mjs)$/.test(e.name) ? [path] : [];
  });
}

/** The top-level unit a path inside `root` belongs to: `oauth` for oauth/errors.ts, `deps.ts` for deps.ts. */
export function unitOf(root: string, path: string): string {
  return relative(root, path).split(sep)[0]!;
}

/** Every import that crosses from one top-level unit to another. */
export function unitImports(root: string): UnitImport[] {
  const out: UnitImport[] = [];
  for (const file of sourceFiles(root)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = resolve(dirname(file), fileName);
      const from = unitOf(root, file);
      const to = unitOf(root, target);
      if (from !== to) out.push({ from, to, file: relative(root, file), target: relative(root, target) });
    }
  }
  return out;
}

/**
 * A cycle between units, as the list of units that walks it (the first unit
 * again at the end), or undefined when there is none.
 */
export function findCycle(imports: readonly UnitImport[]): string[] | undefined {
  const next = new Map<string, Set<string>>();
  for (const i of imports) next.set(i.from, (next.get(i.from) ?? new Set()).add(i.to));
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (unit: string): string[] | undefined => {
    const at = path.indexOf(unit);
    if (at >= 0) return [...path.slice(at), unit];
    if (done.has(unit)) return undefined;
    path.push(unit);
    for (const to of [...(next.get(unit) ?? [])].sort()) {
      const cycle = visit(to);
      if (cycle) return cycle;
    }
    path.pop();
    done.add(unit);
    return undefined;
  };
  for (const unit of [...next.keys()].sort()) {
    const cycle = visit(unit);
    if (cycle) return cycle;
  }
  return undefined;
}

/** Each step of a cycle with one import that makes it: "oauth → web (oauth/x.ts imports web/y.ts)". */
export function describeCycle(cycle: readonly string[], imports: readonly UnitImport[]): string {
  return cycle
    .slice(0, -1)
    .map((from, k) => {
      const to = cycle[k + 1]!;
      const i = imports.find((x) => x.from === from && x.to === to)!;
      return `${from} → ${to} (${i.file} imports ${i.target})`;
    })
    .join(', ');
}

/** The written dependency order: the first word of each line of the code block under "## Dependency order". */
export function writtenOrder(markdown: string): string[] {
  const section = markdown.split(/^## Dependency order$/m)[1];
  const block = section?.match(/^```\n([\s\S]*?)^```$/m)?.[1];
  if (!block) throw new Error('docs/architecture.md has no code block under "## Dependency order"');
  return block
    .split('\n')
    .map((line) => line.trim().split(/\s+/)[0]!)
    .filter(Boolean);
}
