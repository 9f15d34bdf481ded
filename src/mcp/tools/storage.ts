import { OTHER_RECORDS } from '../../activity/events.ts';
import { z } from 'zod';
import { Readable } from 'node:stream';
import { FileService } from '../../platform/files/file-service.ts';
import { fileJson } from '../../platform/files/file-json.ts';
import { ALLOWED_CONTENT_TYPES, type AllowedContentType } from '../../platform/files/file-types.ts';
import { PlatformError } from '../../platform/errors.ts';
import { readableBytes } from '../../util/readable-bytes.ts';
import { MCP_BODY_LIMIT_BYTES } from '../../http/requests/body-limits.ts';
import { defineTool, type ToolContext } from '../tool.ts';
import { LIST_MAX } from './records.ts';

/**
 * Stored files over MCP, on the service behind /api/v1/storage. An upload
 * comes as base64 inside one JSON-RPC message, so it is bounded well below
 * the /mcp body limit; larger files go to POST /api/v1/storage.
 */
export const MCP_UPLOAD_MAX_BYTES = Math.floor((MCP_BODY_LIMIT_BYTES * 3) / 4) - 64 * 1024;

const files = (ctx: ToolContext) => new FileService(ctx.deps);

async function quotaLine(ctx: ToolContext): Promise<{ used_bytes: number; quota_bytes: number }> {
  return { used_bytes: await ctx.deps.store.files.usedBytes(), quota_bytes: ctx.deps.config.storageQuotaBytes };
}

export const listFiles = defineTool({
  name: 'list_files',
  toolset: 'site',
  title: 'List stored files',
  description: "The school's uploaded files, newest first, with how much of the storage quota is used.",
  scopes: ['storage:write'],
  readOnly: true,
  input: { limit: z.number().int().min(1).max(LIST_MAX).default(20).describe(`1-${LIST_MAX}`) },
  async run(ctx, args) {
    const list = (await files(ctx).list(args.limit)).map((f) => fileJson(f, ctx.deps.config.issuer));
    const quota = await quotaLine(ctx);
    const lines = list.map((f) => `- ${String(f.name)} (${String(f.content_type)}, ${readableBytes(Number(f.size))}) id ${String(f.id)}`);
    return { structured: { files: list, ...quota }, text: [`${readableBytes(quota.used_bytes)} of ${readableBytes(quota.quota_bytes)} used.`, ...lines].join('\n') };
  },
});

export const uploadFile = defineTool({
  name: 'upload_file',
  toolset: 'site',
  title: 'Upload a small file',
  description: `Stores a file given as base64 (up to ${readableBytes(MCP_UPLOAD_MAX_BYTES)}; larger ones go to POST /api/v1/storage). Types: ${ALLOWED_CONTENT_TYPES.join(', ')}; the content must match its type. Refused past the school's storage quota.`,
  scopes: ['storage:write'],
  readOnly: false,
  idempotent: false,
  input: {
    name: z.string().min(1).max(255).describe('File name'),
    content_type: z.enum(ALLOWED_CONTENT_TYPES as unknown as [string, ...string[]]),
    content_base64: z
      .string()
      .min(1)
      .max(Math.ceil(MCP_UPLOAD_MAX_BYTES / 3) * 4 + 4)
      .describe('The bytes, base64'),
  },
  async run(ctx, args) {
    // The input's enum has already refused any other type.
    const type = args.content_type as AllowedContentType;
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(args.content_base64)) throw new PlatformError('invalid_request', 'content_base64 is not base64');
    const bytes = Buffer.from(args.content_base64, 'base64');
    if (bytes.length > MCP_UPLOAD_MAX_BYTES) throw new PlatformError('invalid_request', `The file is larger than ${readableBytes(MCP_UPLOAD_MAX_BYTES)}; upload it with POST /api/v1/storage`, 413);
    const userId = ctx.caller.kind === 'token' ? ctx.caller.userId : null;
    const service = files(ctx);
    // The files directory exists once anything was uploaded; on a fresh school this is the first upload.
    await service.prepare();
    const stored = await service.save({ name: args.name, contentType: type, stream: Readable.from([bytes]), truncated: () => false, uploadedBy: userId });
    const file = fileJson(stored, ctx.deps.config.issuer);
    return { structured: { file, ...(await quotaLine(ctx)) }, text: `Stored ${String(file.name)} (${readableBytes(stored.size)}) as ${stored.id}.` };
  },
});

export const deleteFile = defineTool({
  name: 'delete_file',
  toolset: 'site',
  title: 'Delete a stored file',
  description: 'Deletes an uploaded file; refused while a record still links to it.',
  scopes: ['storage:write'],
  readOnly: false,
  destroys: (args) => ({ recordType: OTHER_RECORDS.files, recordId: String(args.id), label: `stored file ${String(args.id)}` }),
  idempotent: true,
  input: { id: z.string().min(5).max(100).describe('The file id (fil_...)') },
  async run(ctx, args) {
    await files(ctx).delete(args.id);
    return { structured: { deleted: args.id, ...(await quotaLine(ctx)) }, text: `Deleted file ${args.id}.` };
  },
});
