/**
 * The content types Lyceum stores, and a check that the bytes are what the
 * upload claims: a file served back must not be HTML or script under an image label.
 */
export const ALLOWED_CONTENT_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif', 'application/pdf', 'text/plain', 'text/markdown', 'application/zip', 'video/mp4'] as const;

export type AllowedContentType = (typeof ALLOWED_CONTENT_TYPES)[number];

/** "Text/Plain; charset=utf-8" → "text/plain"; undefined when not allowed. */
export function allowedContentType(raw: string | undefined): AllowedContentType | undefined {
  const type = (raw ?? '').split(';')[0]!.trim().toLowerCase();
  return (ALLOWED_CONTENT_TYPES as readonly string[]).includes(type) ? (type as AllowedContentType) : undefined;
}

const ascii = (s: string) => Buffer.from(s, 'latin1');

/** Leading bytes of each binary format ([offset, bytes] pairs; any one list matching is enough). */
const SIGNATURES: Partial<Record<AllowedContentType, [number, Buffer][][]>> = {
  'image/png': [[[0, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])]]],
  'image/jpeg': [[[0, Buffer.from([0xff, 0xd8, 0xff])]]],
  'image/gif': [[[0, ascii('GIF87a')]], [[0, ascii('GIF89a')]]],
  'image/webp': [
    [
      [0, ascii('RIFF')],
      [8, ascii('WEBP')],
    ],
  ],
  'application/pdf': [[[0, ascii('%PDF-')]]],
  // A local file header, or the end-of-central-directory record of an empty archive.
  'application/zip': [[[0, Buffer.from([0x50, 0x4b, 0x03, 0x04])]], [[0, Buffer.from([0x50, 0x4b, 0x05, 0x06])]]],
  // ISO/IEC 14496-12: the first box of an MP4 file is `ftyp`.
  'video/mp4': [[[4, ascii('ftyp')]]],
};

const HEAD_BYTES = 16;

/** Fed the upload chunk by chunk; says at the end whether the content fits its type. */
export class ContentCheck {
  private head = Buffer.alloc(0);
  private readonly decoder?: TextDecoder;
  private textOk = true;

  constructor(private readonly type: AllowedContentType) {
    if (type.startsWith('text/')) this.decoder = new TextDecoder('utf-8', { fatal: true });
  }

  update(chunk: Buffer): void {
    if (this.head.length < HEAD_BYTES) this.head = Buffer.concat([this.head, chunk.subarray(0, HEAD_BYTES - this.head.length)]);
    if (!this.decoder || !this.textOk) return;
    try {
      // Text is UTF-8 without NUL bytes: anything else is binary under a text label.
      if (this.decoder.decode(chunk, { stream: true }).includes('\u0000')) this.textOk = false;
    } catch {
      this.textOk = false;
    }
  }

  matches(): boolean {
    if (this.decoder) {
      try {
        this.decoder.decode();
      } catch {
        this.textOk = false;
      }
      return this.textOk;
    }
    const options = SIGNATURES[this.type] ?? [];
    return options.some((parts) => parts.every(([offset, bytes]) => this.head.subarray(offset, offset + bytes.length).equals(bytes)));
  }
}
