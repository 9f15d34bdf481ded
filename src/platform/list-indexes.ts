import type { IndexSpec } from '../store/types.ts';
import { AREA_LIST, sortColumn, type AreaDef } from './areas.ts';

/**
 * The indexes that make every list of every area a range of one index,
 * derived from the declarations: a page is `WHERE <filter> = ? [AND (sort,
 * id) > (?, ?)] ORDER BY sort, id LIMIT n`, which an index on (filter, sort,
 * id) hands out in order, stopping after n rows, whatever the table's size.
 * So each area gets (sort, id), and (column, sort, id) for each filterable
 * column, each reference and each column the platform looks records up by
 * (`lookup`, a student's account), and each column a delete of a parent
 * looks its records up by (onDelete). The public view's `status = 'published'` is a filter on
 * status, and an event's `starts_at >= now` is a range of its sort column.
 * Each area with searchable fields also gets a search index over them.
 */
export function listIndexes(areas: readonly AreaDef[] = AREA_LIST): IndexSpec[] {
  const specs = new Map<string, IndexSpec>();
  const add = (table: string, columns: string[]) => specs.set(`${table}:${columns.join(',')}`, { table, columns });
  for (const area of areas) {
    const sort = sortColumn(area);
    add(area.name, [sort, 'id']);
    for (const [name, f] of Object.entries(area.fields)) if ((f.filter || f.lookup || f.type === 'ref') && name !== sort) add(area.name, [name, sort, 'id']);
  }
  for (const area of areas) {
    for (const [table, column] of [...(area.onDelete?.cascade ?? []), ...(area.onDelete?.restrict ?? [])]) {
      const child = areas.find((a) => a.name === table);
      if (child) add(table, [column, sortColumn(child), 'id']);
    }
  }
  // The free-text search `q` matches these columns (any view's: the public one searches fewer).
  for (const area of areas) {
    const columns = Object.entries(area.fields)
      .filter(([, f]) => f.search)
      .map(([name]) => name);
    if (columns.length > 0) specs.set(`${area.name}:search`, { table: area.name, columns, search: true });
  }
  return [...specs.values()];
}
