/**
 * Rules of the area declarations that the record service relies on without
 * checking them again (each is the reason a check in records.ts changes
 * nothing today). A new area or field that breaks one must come with a check
 * and a test of its own.
 */
import { describe, expect, it } from 'vitest';
import { AREAS, type AreaDef } from '../../src/platform/areas.ts';

const areas: AreaDef[] = Object.values(AREAS);

describe('area declarations', () => {
  it('an area with a public view filters on public fields only', () => {
    const hidden = areas
      .filter((a) => a.publicRead)
      .flatMap((a) =>
        Object.entries(a.fields)
          .filter(([, f]) => f.filter && !f.public)
          .map(([n]) => `${a.name}.${n}`),
      );
    expect(hidden).toEqual([]);
  });

  it('an area declares at most one unique value', () => {
    expect(areas.filter((a) => (a.unique?.length ?? 0) > 1).map((a) => a.name)).toEqual([]);
  });

  it('a table a delete is restricted by has a one-word name', () => {
    expect(
      areas
        .flatMap((a) => a.onDelete?.restrict ?? [])
        .map(([table]) => table)
        .filter((t) => t.includes('_')),
    ).toEqual([]);
  });

  it('a boolean field has a default', () => {
    expect(
      areas.flatMap((a) =>
        Object.entries(a.fields)
          .filter(([, f]) => f.type === 'boolean' && f.default === undefined)
          .map(([n]) => `${a.name}.${n}`),
      ),
    ).toEqual([]);
  });

  it('only lessons have a section_id', () => {
    expect(areas.filter((a) => 'section_id' in a.fields).map((a) => a.name)).toEqual(['lessons']);
  });
});
