import type { StoredFile } from '../../store/types.ts';
import { API_PREFIX } from '../routes/paths.ts';

/** A stored file as the API and the MCP tools show it, with the URL its bytes are read from. */
export function fileJson(f: StoredFile, issuer: string): Record<string, unknown> {
  return {
    id: f.id,
    name: f.name,
    content_type: f.contentType,
    size: f.size,
    sha256: f.sha256,
    uploaded_by: f.uploadedBy,
    created_at: new Date(f.createdAt).toISOString(),
    download_url: `${issuer}${API_PREFIX}/storage/${f.id}/content`,
  };
}
