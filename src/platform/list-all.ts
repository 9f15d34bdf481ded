import type { AreaDef } from './areas.ts';
import type { RecordService, View } from './records.ts';

/** Pages of 100; a safety stop well past any real course or student history. */
const PAGE_SIZE = 100;
const MAX_PAGES = 100;

/** Every record of an area matching equality filters, in the area's order, through RecordService. */
export async function listAll(records: RecordService, area: AreaDef, view: View, filters: Record<string, string>): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const { data, next_cursor } = await records.list(area, view, { limit: PAGE_SIZE, filters, ...(cursor ? { cursor } : {}) });
    out.push(...data);
    if (!next_cursor) break;
    cursor = next_cursor;
  }
  return out;
}
