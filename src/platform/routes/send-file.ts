import type { ReadStream } from 'node:fs';
import type { FastifyReply } from 'fastify';
import type { StoredFile } from '../../store/types.ts';

/** RFC 5987 §3.2 attr-char: everything else is percent-encoded. */
const encodeExtValue = (s: string) => encodeURIComponent(s).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** RFC 6266 §4.3: a quoted ASCII fallback, then filename* for every other character. */
export function contentDisposition(kind: 'attachment' | 'inline', name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `${kind}; filename="${fallback}"; filename*=UTF-8''${encodeExtValue(name)}`;
}

/** Streams stored bytes with their content type; nosniff so a browser never reinterprets them. */
export function sendFile(reply: FastifyReply, file: StoredFile, content: ReadStream, kind: 'attachment' | 'inline', cacheControl: string): FastifyReply {
  return reply
    .type(file.contentType.startsWith('text/') ? `${file.contentType}; charset=utf-8` : file.contentType)
    .header('content-length', String(file.size))
    .header('content-disposition', contentDisposition(kind, file.name))
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', cacheControl)
    .send(content);
}
