/**
 * The layering of src/ (docs/architecture.md, "Dependency order"): no two
 * top-level units depend on each other, however long the way round, and each
 * imports only units the written order places below it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeCycle, findCycle, unitImports, writtenOrder } from './import-graph.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const SRC = resolve(ROOT, 'src');
const ORDER = writtenOrder(readFileSync(resolve(ROOT, 'docs/architecture.md'), 'utf8'));
const IMPORTS = unitImports(SRC);

describe('the top-level units of src/', () => {
  it('import one another without a cycle', () => {
    const cycle = findCycle(IMPORTS);
    expect(cycle && `cycle: ${describeCycle(cycle, IMPORTS)}`).toBeUndefined();
  });

  it('are each named once in the written order', () => {
    const units = readdirSync(SRC).sort();
    expect(
      units.filter((u) => !ORDER.includes(u)),
      'units missing from the written order',
    ).toEqual([]);
    expect(
      ORDER.filter((u) => !units.includes(u)),
      'names in the written order that src/ does not hold',
    ).toEqual([]);
    expect(new Set(ORDER).size, 'a unit named twice').toBe(ORDER.length);
  });

  it('import only units the written order places below them', () => {
    const upward = IMPORTS.filter((i) => ORDER.indexOf(i.to) >= ORDER.indexOf(i.from)).map((i) => `${i.from} imports ${i.to}, which the order places above it (${i.file} imports ${i.target})`);
    expect(upward).toEqual([]);
  });
});
