import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Deps } from '../../deps.ts';
import { PlatformError } from '../errors.ts';
import { APPEARANCE_DEFAULTS, AppearanceService, LOGO_PATH, THEMES } from '../appearance.ts';
import { FILE_ID, FileService } from '../files/file-service.ts';
import { documented, errorResponses } from '../../http/routes/route-docs.ts';
import { declareRoute } from '../../resource/declare-route.ts';
import { patchBody } from '../../http/requests/patch-body.ts';
import { API_PREFIX } from './paths.ts';
import { sendFile } from './send-file.ts';

const COLOR = z.string().regex(/^#[0-9A-Fa-f]{6}$/);

export const APPEARANCE_SCHEMA = z
  .object({
    theme: z.enum(THEMES).describe(`light, dark or auto (default ${APPEARANCE_DEFAULTS.theme})`),
    primary_color: z.string().describe(`#RRGGBB (default ${APPEARANCE_DEFAULTS.primary_color})`),
    accent_color: z.string().describe(`#RRGGBB (default ${APPEARANCE_DEFAULTS.accent_color})`),
    logo_url: z.string().nullable().describe('External https logo'),
    logo_file_id: z.string().nullable().describe('Uploaded logo image'),
    effective_logo_url: z.string().nullable().describe(`The logo to show: logo_url, or ${LOGO_PATH} when logo_file_id is set`),
    updated_at: z.iso.datetime({ offset: true }).nullable().describe('Last change; null while the defaults apply'),
  })
  .describe("The school's look; public");

/** No defaults: the validator would fill them in and reset fields on PATCH. */
export const APPEARANCE_PATCH_SCHEMA = patchBody(
  z.strictObject({
    theme: z.enum(THEMES).optional().describe('light, dark or auto'),
    primary_color: COLOR.optional().describe('Primary colour, #RRGGBB'),
    accent_color: COLOR.optional().describe('Accent colour, #RRGGBB'),
    logo_url: z
      .url({ protocol: /^https$/ })
      .max(2000)
      .nullable()
      .optional()
      .describe('https URL of the logo'),
    logo_file_id: z.string().regex(FILE_ID).nullable().optional().describe('Id of an uploaded image (POST /api/v1/storage)'),
  }),
).describe('Fields to change. Setting logo_url clears logo_file_id and the other way round; null removes the logo.');

/** GET and PATCH /api/v1/appearance, and the public logo download. */
export function registerAppearanceRoutes(app: FastifyInstance, deps: Deps): void {
  const appearance = new AppearanceService(deps);
  const files = new FileService(deps);
  const tags = ['appearance'];
  const publicRead = { scopes: ['appearance:read'], anonymousView: true } as const;
  const path = `${API_PREFIX}/appearance`;

  declareRoute(
    app,
    deps,
    {
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
    },
    async () => appearance.view(),
  );

  declareRoute(
    app,
    deps,
    {
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
    },
    async (request) => appearance.update(request.body),
  );

  declareRoute(
    app,
    deps,
    {
      method: 'GET',
      path: LOGO_PATH,
      operationId: 'getLogo',
      ...publicRead,
      schema: {
        tags,
        summary: 'Download the uploaded logo',
        description: 'The image named by logo_file_id, for everyone. 404 when the logo is an external logo_url or unset.',
        response: { 200: documented(z.string().meta({ format: 'binary' }), 'The image bytes'), ...errorResponses([401, 404]) },
      },
    },
    async (_request, reply) => {
      const { logo_file_id } = await appearance.read();
      if (!logo_file_id) throw new PlatformError('not_found', 'The school has no uploaded logo');
      const { file, content } = await files.open(logo_file_id);
      return sendFile(reply, file, content, 'inline', 'public, max-age=300');
    },
  );
}
