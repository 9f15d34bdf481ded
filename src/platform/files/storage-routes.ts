import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Deps } from '../../deps.ts';
import { rateLimitFor } from '../../http/requests/rate-limit.ts';
import type { StoredFile } from '../../store/types.ts';
import { FileService, MAX_FILE_BYTES } from './file-service.ts';
import { FILE_SCHEMA, fileJson } from './file-json.ts';
import { ALLOWED_CONTENT_TYPES } from './file-types.ts';
import { describeRoute, documented, errorResponses } from '../../http/routes/route-docs.ts';
import { declareRoute } from '../../resource/declare-route.ts';
import { readUpload, UPLOAD_LIMITS } from './read-upload.ts';
import { API_PREFIX } from '../routes/paths.ts';
import { PAGE_SIZE } from '../page-size.ts';
import { sendFile } from '../routes/send-file.ts';
import { tokenCaller } from '../routes/token-caller.ts';
import { readableBytes } from '../../util/readable-bytes.ts';

const idParams = z.object({ id: z.string().max(100).describe('File id (fil_...); anything else is 404') });

/**
 * Documentation of the multipart body only: the parts are streamed by
 * @fastify/multipart, not parsed into request.body, and readUpload checks them.
 */
const UPLOAD_BODY = z.object({
  file: z
    .string()
    .meta({ format: 'binary' })
    .describe(`One file of up to ${readableBytes(MAX_FILE_BYTES)}: ${ALLOWED_CONTENT_TYPES.join(', ')}`),
});

const BYTES = z.string().meta({ format: 'binary' });

/**
 * Upload rate-limit key: the access token's identity as the store keeps it
 * (its SHA-256), known once the bearer guard has run. Never the raw header:
 * "Bearer x" and "bearer  x" are one token, and the counters (in Redis too)
 * must not hold a credential.
 */
function uploaderKey(request: FastifyRequest): string {
  const caller = request.caller;
  return caller.kind === 'token' ? `upload-token:${caller.token.hash}` : `upload-ip:${request.ip}`;
}

/** storage:write is the only storage scope: it uploads, lists, downloads and deletes. */
export function registerStorageRoutes(app: FastifyInstance, deps: Deps): void {
  const files = new FileService(deps);
  const tags = ['storage'];
  const base = `${API_PREFIX}/storage`;
  // storage:write is the only storage scope: every operation here needs it.
  const guard = { scopes: ['storage:write'] } as const;
  const toJson = (f: StoredFile) => fileJson(f, deps.config.issuer);

  // preHandler: after the guard (preValidation), so an unauthenticated request costs no budget and the key is the token's.
  const rateLimit = rateLimitFor(deps.config, 'upload', { hook: 'preHandler', keyGenerator: uploaderKey });

  // Multipart parsing exists only inside this plugin: no other route accepts multipart bodies.
  void app.register(async function storageScope(scope) {
    await scope.register(multipart, { limits: UPLOAD_LIMITS, throwFileSizeLimit: true });

    declareRoute(
      scope,
      deps,
      {
        method: 'POST',
        path: base,
        operationId: 'uploadFile',
        ...guard,
        options: { config: { rateLimit } },
        schema: describeRoute(
          {
            tags,
            summary: 'Upload a file',
            description:
              `multipart/form-data with one file part (${readableBytes(MAX_FILE_BYTES)} at most; ${ALLOWED_CONTENT_TYPES.join(', ')}). The content must match its declared type. 413 when too large or when the school's storage quota (STORAGE_QUOTA_BYTES, ${deps.config.storageQuotaBytes} bytes) would be passed: deleting files frees room. 415 for other types or a body that is not multipart. ${deps.config.rateLimits.uploadPerMinute > 0 ? `429 past ${deps.config.rateLimits.uploadPerMinute} uploads per minute per access token (RATE_LIMIT_UPLOAD_PER_MINUTE), with Retry-After.` : ''}`.trim(),
            consumes: ['multipart/form-data'],
            response: { 201: FILE_SCHEMA, ...errorResponses([400, 401, 403, 413, 415, 429]) },
          },
          { body: UPLOAD_BODY },
        ),
      },
      async (request, reply) => {
        const file = await readUpload(request, files, tokenCaller(request).userId);
        return reply.code(201).send(toJson(file));
      },
    );
  });

  declareRoute(
    app,
    deps,
    {
      method: 'GET',
      path: base,
      operationId: 'listFiles',
      ...guard,
      schema: {
        tags,
        summary: 'List uploaded files',
        description: 'Newest first.',
        querystring: z.object({ limit: z.coerce.number().int().min(PAGE_SIZE.min).max(PAGE_SIZE.max).default(PAGE_SIZE.files).describe('How many') }),
        response: { 200: z.object({ data: z.array(FILE_SCHEMA) }), ...errorResponses([400, 401, 403]) },
      },
    },
    async (request) => ({ data: (await files.list(request.query.limit)).map(toJson) }),
  );

  declareRoute(
    app,
    deps,
    {
      method: 'GET',
      path: `${base}/:id/content`,
      operationId: 'downloadFile',
      ...guard,
      schema: {
        tags,
        summary: 'Download a file',
        description: 'The bytes with their content type, as an attachment (x-content-type-options: nosniff).',
        params: idParams,
        response: { 200: documented(BYTES, 'The file bytes'), ...errorResponses([401, 403, 404]) },
      },
    },
    async (request, reply) => {
      const { file, content } = await files.open(request.params.id);
      return sendFile(reply, file, content, 'attachment', 'private, no-cache');
    },
  );

  declareRoute(
    app,
    deps,
    {
      method: 'DELETE',
      path: `${base}/:id`,
      operationId: 'deleteFile',
      ...guard,
      schema: {
        tags,
        summary: 'Delete a file',
        description: 'Removes the metadata and the bytes. 409 while a digital product (file_id) or the appearance logo (logo_file_id) uses it.',
        params: idParams,
        response: { 204: documented(z.null(), 'Deleted'), ...errorResponses([401, 403, 404, 409]) },
      },
    },
    async (request, reply) => {
      await files.delete(request.params.id);
      return reply.code(204).send(null);
    },
  );
}
