import type { Deps } from '../../deps.ts';
import { APPEARANCE_SETTINGS_KEY } from '../appearance.ts';

/** What still points at a file, in plain words: digital products (file_id) and the appearance logo (logo_file_id). */
export async function fileReferences(deps: Deps, fileId: string): Promise<string[]> {
  const out: string[] = [];
  const products = await deps.store.records.select('digital_products', ['id'], [['file_id', '=', fileId]]);
  if (products.length) out.push(`digital product${products.length > 1 ? 's' : ''} ${products.map((p) => String(p.id)).join(', ')}`);
  const appearance = await deps.store.settings.get(APPEARANCE_SETTINGS_KEY);
  if (appearance?.logo_file_id === fileId) out.push('the appearance logo (logo_file_id)');
  return out;
}
