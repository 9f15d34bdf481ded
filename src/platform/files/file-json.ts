import { z } from 'zod';
import type { StoredFile } from '../../store/types.ts';
import { API_PREFIX } from '../routes/paths.ts';
import { ALLOWED_CONTENT_TYPES } from './file-types.ts';

/** A stored file as the API and the MCP tools show it. */
export const FILE_SCHEMA = z.object({
  id: z.string(),
  name: z.string().describe('File name as uploaded (last path segment)'),
  // Stored as text; only these are ever accepted (file-types.ts).
  content_type: z.string().meta({ enum: [...ALLOWED_CONTENT_TYPES] }),
  size: z.int().describe('Bytes'),
  sha256: z.string().describe('Hex SHA-256 of the content'),
  uploaded_by: z.string().nullable().describe('Id of the user who uploaded it'),
  created_at: z.iso.datetime({ offset: true }),
  download_url: z.string().describe('GET it with storage:write to download the bytes'),
});

/** A stored file as FILE_SCHEMA says, with the URL its bytes are read from. */
export function fileJson(f: StoredFile, issuer: string): z.infer<typeof FILE_SCHEMA> {
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
