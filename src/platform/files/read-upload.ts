import type { Multipart } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { describeCause, HttpError } from '../../http/errors/http-error.ts';
import { PlatformError } from '../errors.ts';
import type { StoredFile } from '../../store/types.ts';
import { MAX_FILE_BYTES, type FileService } from './file-service.ts';
import { ALLOWED_CONTENT_TYPES, allowedContentType } from './file-types.ts';
import { readableBytes } from '../../util/readable-bytes.ts';

/** Multipart limits, also given to @fastify/multipart: one file of up to MAX_FILE_BYTES, at most 5 other fields. */
export const UPLOAD_LIMITS = { fileSize: MAX_FILE_BYTES, files: 1, fields: 5, fieldSize: 1024, parts: 6 } as const;

/** @fastify/multipart's limit errors, by code, as the JSON errors this API answers with. */
const LIMIT_ERRORS: Record<string, () => PlatformError> = {
  FST_REQ_FILE_TOO_LARGE: () => new PlatformError('invalid_request', `The file is larger than ${MAX_FILE_BYTES} bytes (${readableBytes(MAX_FILE_BYTES)})`, 413),
  FST_FILES_LIMIT: () => new PlatformError('invalid_request', 'Send one file per request', 413),
  FST_FIELDS_LIMIT: () => new PlatformError('invalid_request', 'Too many form fields (at most 5 besides the file)', 413),
  FST_PARTS_LIMIT: () => new PlatformError('invalid_request', 'Too many parts in the multipart body', 413),
  FST_PROTO_VIOLATION: () => new PlatformError('invalid_request', 'A form field has a forbidden name'),
};

/**
 * Errors while parsing are the client's malformed body (400), except the
 * server's own file-system errors (they carry a syscall), which stay 500. The
 * parser's own message goes to the log, never to the client.
 */
function asUploadError(err: unknown): unknown {
  if (err instanceof HttpError) return err;
  const e = err as { code?: string; syscall?: string };
  if (e.syscall) return err;
  const refused = LIMIT_ERRORS[e.code ?? '']?.() ?? new PlatformError('invalid_request', 'The multipart/form-data body is malformed');
  return refused.withDetail(describeCause(err));
}

/**
 * Reads a multipart/form-data upload: the first file part is checked for its
 * content type and stored; other fields are read and ignored; the body is read
 * to its end so every limit is enforced.
 */
export async function readUpload(request: FastifyRequest, files: FileService, uploadedBy: string): Promise<StoredFile> {
  if (!request.isMultipart()) {
    throw new PlatformError('invalid_request', 'Send the file as multipart/form-data', 415);
  }
  await files.prepare();
  let stored: StoredFile | undefined;
  try {
    for await (const part of request.parts() as AsyncIterableIterator<Multipart>) {
      if (part.type !== 'file') continue;
      if (stored) {
        part.file.resume();
        throw LIMIT_ERRORS.FST_FILES_LIMIT!();
      }
      const contentType = allowedContentType(part.mimetype);
      if (!contentType) {
        part.file.resume();
        throw new PlatformError('invalid_request', `Files of type ${part.mimetype || '(none)'} are not accepted; allowed: ${ALLOWED_CONTENT_TYPES.join(', ')}`, 415);
      }
      const stream = part.file;
      stored = await files.save({ name: part.filename, contentType, stream, truncated: () => stream.truncated, uploadedBy });
    }
  } catch (err) {
    if (stored) await files.delete(stored.id).catch(() => undefined);
    throw asUploadError(err);
  }
  if (!stored) throw new PlatformError('invalid_request', 'The body has no file part');
  return stored;
}
