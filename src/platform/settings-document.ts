import { writeEntry } from '../activity/record.ts';
import type { Deps } from '../deps.ts';

/**
 * Stores one of the school's settings documents (its settings, its
 * appearance) with the activity entry of the change, in one transaction:
 * the document is its own record, of type `recordType` and id `key`, and
 * the entry names the settings that were `changed`.
 */
export async function saveSettingsDocument(deps: Deps, key: string, recordType: string, value: object, now: number, changed: string[]): Promise<void> {
  await deps.store.settings.put(key, value as Record<string, unknown>, now, await writeEntry(deps, 'record.updated', recordType, key, changed));
}
