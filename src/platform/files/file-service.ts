import { OTHER_RECORDS } from '../../activity/events.ts';
import { writeEntry } from '../../activity/record.ts';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, type ReadStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Deps } from '../../deps.ts';
import { PlatformError } from '../errors.ts';
import type { QuotaInsertResult, StoredFile } from '../../store/types.ts';
import { fileReferences } from './file-references.ts';
import { ContentCheck, type AllowedContentType } from './file-types.ts';
import { filesDirectory } from './files-directory.ts';
import { clampPageSize } from '../page-size.ts';
import { readableBytes } from '../../util/readable-bytes.ts';

/** Largest upload, in bytes: every message and document about it reads this. */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;

/** Ids are made here and checked on the way in, so a path is only ever `<files dir>/fil_<base64url>`. */
export const FILE_ID = /^fil_[A-Za-z0-9_-]{1,64}$/;

export interface Upload {
  name: string;
  contentType: AllowedContentType;
  stream: Readable;
  /** True when the stream was cut at the size limit. */
  truncated: () => boolean;
  uploadedBy: string | null;
}

/** 413, as docs/decisions.md keeps it for size refusals, naming the quota, what is used and what the file needs. */
function overQuota(quota: number, used: number, size: number): PlatformError {
  return new PlatformError(
    'invalid_request',
    `The school's storage quota is ${readableBytes(quota)} (STORAGE_QUOTA_BYTES=${quota}); ${readableBytes(used)} (${used} bytes) is used and this file needs ${readableBytes(size)} (${size} bytes). Delete files to make room.`,
    413,
  );
}

const notFound = (id: string) => new PlatformError('not_found', `No file with id ${id}`);

/** "../x/évaluation.pdf" → "évaluation.pdf": the last path segment, without control characters. */
export function cleanFileName(raw: string): string {
  // eslint-disable-next-line no-control-regex
  const base = (raw.split(/[\\/]/).pop() ?? '').replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return base.slice(0, 255) || 'file';
}

/**
 * Uploaded files: bytes under the data directory named by id, metadata in the
 * FileStore. Writes go to `<id>.part` and are renamed once complete and checked,
 * so a reader never sees half a file.
 */
export class FileService {
  private readonly dir: string;

  constructor(private readonly deps: Deps) {
    this.dir = filesDirectory(deps.config.database);
  }

  /** Creates the files directory; call before reading an upload. */
  async prepare(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
  }

  /**
   * Streams an upload to disk (after prepare()), hashing and checking it on the
   * way. A part the parser already abandoned (a body cut off inside the file)
   * arrives destroyed and would never end, so it is refused up front.
   */
  async save(upload: Upload): Promise<StoredFile> {
    if (upload.stream.destroyed) throw new PlatformError('invalid_request', 'The multipart body ended in the middle of the file');
    const id = `fil_${randomBytes(12).toString('base64url')}`;
    const partial = join(this.dir, `${id}.part`);
    const final = join(this.dir, id);
    const hash = createHash('sha256');
    const check = new ContentCheck(upload.contentType);
    let size = 0;
    const meter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        check.update(chunk);
        size += chunk.length;
        done(null, chunk);
      },
    });
    try {
      await pipeline(upload.stream, meter, createWriteStream(partial, { flags: 'wx', mode: 0o600 }));
      if (upload.truncated()) throw new PlatformError('invalid_request', `The file is larger than ${MAX_FILE_BYTES} bytes (${readableBytes(MAX_FILE_BYTES)})`, 413);
      if (size === 0) throw new PlatformError('invalid_request', 'The file is empty');
      if (!check.matches()) throw new PlatformError('invalid_request', `The content is not ${upload.contentType}`, 415);
      await rename(partial, final);
    } catch (err) {
      await rm(partial, { force: true });
      throw err;
    }
    const file: StoredFile = {
      id,
      name: cleanFileName(upload.name),
      contentType: upload.contentType,
      size,
      sha256: hash.digest('hex'),
      uploadedBy: upload.uploadedBy,
      createdAt: this.deps.now(),
    };
    // The quota is checked where the row is inserted, in one atomic step (FileStore.insertWithinQuota),
    // so concurrent uploads on any instance never together pass it. Until then the bytes are on
    // disk: at most one MAX_FILE_BYTES file per upload in flight beyond the quota.
    const quota = this.deps.config.storageQuotaBytes;
    let result: QuotaInsertResult;
    try {
      result = await this.deps.store.files.insertWithinQuota(file, quota, await writeEntry(this.deps, 'record.created', OTHER_RECORDS.files, file.id, ['name', 'content_type']));
    } catch (err) {
      await rm(final, { force: true });
      throw err;
    }
    if (!result.stored) {
      await rm(final, { force: true });
      throw overQuota(quota, result.usedBytes, size);
    }
    return file;
  }

  /** Newest first. */
  list(limit: number): Promise<StoredFile[]> {
    return this.deps.store.files.list(clampPageSize(limit));
  }

  async find(id: string): Promise<StoredFile> {
    const file = FILE_ID.test(id) ? await this.deps.store.files.find(id) : undefined;
    if (!file) throw notFound(id);
    return file;
  }

  /** The file and a stream of its bytes; 404 when the bytes are gone from disk. */
  async open(id: string): Promise<{ file: StoredFile; content: ReadStream }> {
    const file = await this.find(id);
    const path = join(this.dir, file.id);
    const exists = await stat(path).then(
      (s) => s.isFile(),
      () => false,
    );
    if (!exists) throw new PlatformError('not_found', `The content of file ${id} is missing from storage`);
    return { file, content: createReadStream(path) };
  }

  /** Refused (409) while a digital product or the appearance logo still uses the file. */
  async delete(id: string): Promise<void> {
    const file = await this.find(id);
    const users = await fileReferences(this.deps, file.id);
    if (users.length) throw new PlatformError('conflict', `The file is still used by ${users.join(', ')}; point them elsewhere first`);
    await this.deps.store.files.delete(file.id, await writeEntry(this.deps, 'record.deleted', OTHER_RECORDS.files, file.id));
    await rm(join(this.dir, file.id), { force: true });
  }
}
