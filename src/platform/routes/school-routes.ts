import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Deps } from '../../deps.ts';
import { projectSchool, SCHOOL_DEFAULTS, SchoolSettingsService } from '../school-settings.ts';
import { errorResponses } from '../../http/routes/route-docs.ts';
import { declareRoute } from '../../resource/declare-route.ts';
import { patchBody } from '../../http/requests/patch-body.ts';
import { API_PREFIX } from './paths.ts';

const nullableString = (description: string, maxLength: number) => z.string().max(maxLength).nullable().optional().describe(description);

export const SCHOOL_SCHEMA = z
  .object({
    name: z.string().describe(`Name of the school (default "${SCHOOL_DEFAULTS.name}")`),
    description: z.string().describe('What the school teaches (Markdown)'),
    locale: z.string().describe(`Language of the school, a BCP 47 tag (default "${SCHOOL_DEFAULTS.locale}")`),
    currency: z.string().describe(`ISO 4217 currency of prices (default "${SCHOOL_DEFAULTS.currency}")`),
    timezone: z.string().describe(`IANA time zone (default "${SCHOOL_DEFAULTS.timezone}")`),
    website: z.string().nullable().describe('Public website'),
    contact_email: z.string().nullable().optional().describe('Contact email (school:read)'),
    contact_phone: z.string().nullable().optional().describe('Contact phone (school:read)'),
    legal_name: z.string().nullable().optional().describe('Registered legal name (school:read)'),
    address: z.string().nullable().optional().describe('Postal address (school:read)'),
    mcp_student_pseudonyms: z
      .boolean()
      .optional()
      .describe(`MCP answers show students by stable pseudonyms instead of names and emails, and no call can turn that off (default ${SCHOOL_DEFAULTS.mcp_student_pseudonyms}; school:read)`),
    updated_at: z.iso.datetime({ offset: true }).nullable().optional().describe('Last change; null while the defaults apply (school:read)'),
  })
  .describe('The school. Anonymous callers and tokens without school:read see name, description, locale, currency, timezone and website only.');

/** No defaults here: the validator would fill them in and a PATCH would reset fields. */
export const SCHOOL_PATCH_SCHEMA = patchBody(
  z.strictObject({
    name: z.string().min(1).max(200).optional().describe('Name, 1 to 200 characters'),
    description: z.string().max(5000).optional().describe('Description, up to 5000 characters'),
    locale: z
      .string()
      .max(35)
      .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/)
      .optional()
      .describe('BCP 47 language tag such as en, pt-BR or zh-Hant-TW'),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/)
      .optional()
      .describe('ISO 4217 code: three upper-case letters'),
    timezone: z.string().min(1).max(64).optional().describe('IANA time zone such as Europe/Paris or UTC'),
    contact_email: z.email().max(320).nullable().optional().describe('Contact email'),
    website: z
      .url({ protocol: /^https$/ })
      .max(2000)
      .nullable()
      .optional()
      .describe('https URL of the public website'),
    contact_phone: z
      .string()
      .regex(/^\+?[0-9 ()./-]{3,40}$/)
      .nullable()
      .optional()
      .describe('Contact phone number'),
    legal_name: nullableString('Registered legal name', 200),
    address: nullableString('Postal address', 1000),
    mcp_student_pseudonyms: z.boolean().optional().describe('true: every MCP answer shows students by pseudonyms'),
  }),
).describe('Fields to change; null clears an optional one. An unknown field is refused (400).');

/** school:read shows the private fields; without it only the public ones. */
function canReadSchool(request: FastifyRequest): boolean {
  return request.caller.kind === 'token' && request.caller.scopes.has('school:read');
}

/** GET and PATCH /api/v1/school: the school's settings. */
export function registerSchoolRoutes(app: FastifyInstance, deps: Deps): void {
  const school = new SchoolSettingsService(deps);
  const tags = ['school'];
  const path = `${API_PREFIX}/school`;

  declareRoute(
    app,
    deps,
    {
      method: 'GET',
      path,
      operationId: 'getSchool',
      scopes: ['school:read'],
      anonymousView: true,
      schema: {
        tags,
        summary: 'Read the school settings',
        description: 'Public fields for everyone; with school:read also the contact details and the rest.',
        response: { 200: SCHOOL_SCHEMA, ...errorResponses([401]) },
      },
    },
    async (request) => school.view(canReadSchool(request)),
  );

  declareRoute(
    app,
    deps,
    {
      method: 'PATCH',
      path,
      operationId: 'updateSchool',
      scopes: ['school:write'],
      schema: {
        tags,
        summary: 'Change the school settings',
        description: 'Changes the named settings. The answer shows what GET would: everything with school:read, the public fields without it.',
        body: SCHOOL_PATCH_SCHEMA,
        response: { 200: SCHOOL_SCHEMA, ...errorResponses([400, 401, 403]) },
      },
    },
    async (request) => {
      const patch = request.body;
      const before = patch.mcp_student_pseudonyms === undefined ? undefined : (await school.read()).mcp_student_pseudonyms;
      const next = await school.update(patch);
      // Who changed the privacy floor of every agent, and how, stays on record.
      if (before !== undefined && before !== next.mcp_student_pseudonyms && request.caller.kind === 'token') {
        request.log.warn(
          { event: 'mcp_student_pseudonyms_changed', to: next.mcp_student_pseudonyms, user_id: request.caller.userId, client_id: request.caller.clientId },
          'learner pseudonyms for agents changed',
        );
      }
      return projectSchool(next, canReadSchool(request));
    },
  );
}
