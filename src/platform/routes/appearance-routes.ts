import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.ts';
import { PlatformError } from '../errors.ts';
import { APPEARANCE_DEFAULTS, AppearanceService, LOGO_PATH, THEMES, type AppearancePatch } from '../appearance.ts';
import { FILE_ID_PATTERN, FileService } from '../files/file-service.ts';
import { errorResponses } from '../../http/routes/route-docs.ts';
import { declareRoute } from '../../resource/declare-route.ts';
import { API_PREFIX } from './paths.ts';
import { sendFile } from './send-file.ts';

const COLOR = { type: 'string', pattern: '^#[0-9A-Fa-f]{6}$' };

export const APPEARANCE_SCHEMA = {
  type: 'object',
  description: "The school's look; public",
  properties: {
    theme: { type: 'string', enum: [...THEMES], description: `light, dark or auto (default ${APPEARANCE_DEFAULTS.theme})` },
    primary_color: { type: 'string', description: `#RRGGBB (default ${APPEARANCE_DEFAULTS.primary_color})` },
    accent_color: { type: 'string', description: `#RRGGBB (default ${APPEARANCE_DEFAULTS.accent_color})` },
    logo_url: { type: 'string', nullable: true, description: 'External https logo' },
    logo_file_id: { type: 'string', nullable: true, description: 'Uploaded logo image' },
    effective_logo_url: { type: 'string', nullable: true, description: `The logo to show: logo_url, or ${LOGO_PATH} when logo_file_id is set` },
    updated_at: { type: 'string', format: 'date-time', nullable: true, description: 'Last change; null while the defaults apply' },
  },
};

/** No `default` keywords: the validator would fill them in and reset fields on PATCH. */
export const APPEARANCE_PATCH_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  description: 'Fields to change. Setting logo_url clears logo_file_id and the other way round; null removes the logo.',
  properties: {
    theme: { type: 'string', enum: [...THEMES], description: 'light, dark or auto' },
    primary_color: { ...COLOR, description: 'Primary colour, #RRGGBB' },
    accent_color: { ...COLOR, description: 'Accent colour, #RRGGBB' },
    logo_url: { type: 'string', nullable: true, format: 'uri', pattern: '^https://', maxLength: 2000, description: 'https URL of the logo' },
    logo_file_id: { type: 'string', nullable: true, pattern: FILE_ID_PATTERN, description: 'Id of an uploaded image (POST /api/v1/storage)' },
  },
};

/** GET and PATCH /api/v1/appearance, and the public logo download. */
export function registerAppearanceRoutes(app: FastifyInstance, deps: Deps): void {
  const appearance = new AppearanceService(deps);
  const files = new FileService(deps);
  const tags = ['appearance'];
  const publicRead = { scopes: ['appearance:read'], anonymousView: true } as const;
  const path = `${API_PREFIX}/appearance`;

  declareRoute(app, deps, {
    method: 'GET',
    path,
    operationId: 'getAppearance',
    ...publicRead,
    schema: {
      tags,
      summary: "Read the school's appearance",
      description: 'Theme, colours and logo are public: anonymous callers see the same as appearance:read.',
      response: { 200: APPEARANCE_SCHEMA, ...errorResponses([401]) },
    },
  }, async () => appearance.view());

  declareRoute(app, deps, {
    method: 'PATCH',
    path,
    operationId: 'updateAppearance',
    scopes: ['appearance:write'],
    schema: {
      tags,
      summary: "Change the school's appearance",
      body: APPEARANCE_PATCH_SCHEMA,
      response: { 200: APPEARANCE_SCHEMA, ...errorResponses([400, 401, 403]) },
    },
  }, async (request) => appearance.update(request.body as AppearancePatch));

  declareRoute(app, deps, {
    method: 'GET',
    path: LOGO_PATH,
    operationId: 'getLogo',
    ...publicRead,
    schema: {
      tags,
      summary: 'Download the uploaded logo',
      description: 'The image named by logo_file_id, for everyone. 404 when the logo is an external logo_url or unset.',
      response: { 200: { description: 'The image bytes', type: 'string', format: 'binary' }, ...errorResponses([401, 404]) },
    },
  }, async (_request, reply) => {
    const { logo_file_id } = await appearance.read();
    if (!logo_file_id) throw new PlatformError('not_found', 'The school has no uploaded logo');
    const { file, content } = await files.open(logo_file_id);
    return sendFile(reply, file, content, 'inline', 'public, max-age=300');
  });
}
