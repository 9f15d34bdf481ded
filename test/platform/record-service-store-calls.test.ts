/**
 * What the record service asks of its store, on a store that records the
 * calls: checks that requests cannot reach (the routes' schemas refuse the
 * input first) but that every caller of the service relies on, and the
 * retries of a generated slug that keeps colliding.
 */
import { describe, expect, it } from 'vitest';
import type { Deps } from '../../src/deps.ts';
import { AREAS } from '../../src/platform/areas.ts';
import { RecordService } from '../../src/platform/records.ts';
import { DuplicateError } from '../../src/store/types.ts';

function fakeStore(insert: (row: Record<string, unknown>) => Promise<void> = async () => {}) {
  const calls: unknown[][] = [];
  const records = {
    list: async (...args: unknown[]) => (calls.push(['list', ...args]), { rows: [] }),
    get: async (...args: unknown[]) => (calls.push(['get', ...args]), undefined),
    insert: async (table: string, row: Record<string, unknown>) => {
      calls.push(['insert', table, { ...row }]);
      await insert(row);
    },
    update: async (...args: unknown[]) => (calls.push(['update', ...args]), undefined),
  };
  const files = { find: async (...args: unknown[]) => (calls.push(['files.find', ...args]), { id: args[0] }) };
  const service = new RecordService({ now: () => 1_000, store: { records, files } } as unknown as Deps);
  return { service, calls };
}

describe('the record service and its store', () => {
  it('drops a private filter from a public list, and refuses a value outside an enum', async () => {
    const { service, calls } = fakeStore();
    await service.list(AREAS.students, 'public', { filters: { email: 'a@example.test', status: 'active' } });
    expect((calls[0]![2] as { where: unknown }).where).toEqual([]);
    await expect(service.list(AREAS.courses, 'full', { filters: { level: 'expert' } })).rejects.toThrow('level must be one of beginner, intermediate, advanced');
  });

  it('searches with at most 200 characters', async () => {
    const { service, calls } = fakeStore();
    await service.list(AREAS.courses, 'full', { q: 'x'.repeat(300) });
    expect((calls[0]![2] as { search: unknown }).search).toEqual({ columns: ['title', 'summary'], text: 'x'.repeat(200) });
  });

  it('looks up no id longer than 100 characters', async () => {
    const { service, calls } = fakeStore();
    await expect(service.get(AREAS.courses, 'full', 'c'.repeat(101))).rejects.toThrow(`No course with id ${'c'.repeat(101)}`);
    expect(calls).toEqual([]);
    await expect(service.get(AREAS.courses, 'full', 'c'.repeat(100))).rejects.toThrow('No course with id');
    expect(calls).toEqual([['get', 'courses', 'c'.repeat(100)]]);
  });

  it('looks up a section only for a lesson that names one, and a file among the files', async () => {
    const { service, calls } = fakeStore();
    await service.update(AREAS.lessons, 'les_1', { title: 'T' }).catch(() => undefined);
    await service.update(AREAS.courses, 'crs_1', { title: 'T' }).catch(() => undefined);
    expect(calls.filter(([op]) => op === 'get')).toEqual([]);
    await service.create(AREAS.digital_products, { name: 'N', file_id: 'fil_1' });
    expect(calls.filter(([op]) => op === 'get' || op === 'files.find')).toEqual([['files.find', 'fil_1']]);
  });

  it('retries a colliding generated slug three times with a suffix, then reports the conflict', async () => {
    const { service, calls } = fakeStore(async () => {
      throw new DuplicateError('slug taken');
    });
    await expect(service.create(AREAS.courses, { title: ' Été -- 2! ' })).rejects.toThrow('Another course already has this slug');
    const slugs = calls.filter(([op]) => op === 'insert').map((c) => (c[2] as { slug: string }).slug);
    expect(slugs).toHaveLength(4);
    expect(slugs[0]).toBe('ete-2');
    for (const slug of slugs.slice(1)) expect(slug).toMatch(/^ete-2(-[0-9a-f]{6})+$/);
    expect(new Set(slugs).size).toBe(4);
  });

  it('retries nothing but a duplicate', async () => {
    const { service, calls } = fakeStore(async () => {
      throw new Error('disk full');
    });
    await expect(service.create(AREAS.courses, { title: 'T' })).rejects.toThrow('disk full');
    expect(calls.filter(([op]) => op === 'insert')).toHaveLength(1);
  });
});
