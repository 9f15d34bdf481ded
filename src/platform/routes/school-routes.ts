import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.ts';
import { projectSchool, SCHOOL_DEFAULTS, SchoolSettingsService, type SchoolPatch } from '../school-settings.ts';
import { errorResponses } from '../../http/routes/route-docs.ts';
import { declareRoute } from '../../resource/declare-route.ts';
import { API_PREFIX } from './paths.ts';

const nullableString = (description: string, maxLength: number) => ({ type: 'string', nullable: true, maxLength, description });

const PUBLIC_PROPERTIES = {
  name: { type: 'string', description: `Name of the school (default "${SCHOOL_DEFAULTS.name}")` },
  description: { type: 'string', description: 'What the school teaches (Markdown)' },
  locale: { type: 'string', description: `Language of the school, a BCP 47 tag (default "${SCHOOL_DEFAULTS.locale}")` },
  currency: { type: 'string', description: `ISO 4217 currency of prices (default "${SCHOOL_DEFAULTS.currency}")` },
  timezone: { type: 'string', description: `IANA time zone (default "${SCHOOL_DEFAULTS.timezone}")` },
  website: { type: 'string', nullable: true, description: 'Public website' },
};

export const SCHOOL_SCHEMA = {
  type: 'object',
  description: 'The school. Anonymous callers and tokens without school:read see name, description, locale, currency, timezone and website only.',
  properties: {
    ...PUBLIC_PROPERTIES,
    contact_email: { type: 'string', nullable: true, description: 'Contact email (school:read)' },
    contact_phone: { type: 'string', nullable: true, description: 'Contact phone (school:read)' },
    legal_name: { type: 'string', nullable: true, description: 'Registered legal name (school:read)' },
    address: { type: 'string', nullable: true, description: 'Postal address (school:read)' },
    mcp_student_pseudonyms: { type: 'boolean', description: `MCP answers show students by stable pseudonyms instead of names and emails, and no call can turn that off (default ${SCHOOL_DEFAULTS.mcp_student_pseudonyms}; school:read)` },
    updated_at: { type: 'string', format: 'date-time', nullable: true, description: 'Last change; null while the defaults apply (school:read)' },
  },
};

/** No `default` keywords here: the validator would fill them in and a PATCH would reset fields. */
export const SCHOOL_PATCH_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  description: 'Fields to change; null clears an optional one. An unknown field is refused (400).',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200, description: 'Name, 1 to 200 characters' },
    description: { type: 'string', maxLength: 5000, description: 'Description, up to 5000 characters' },
    locale: { type: 'string', maxLength: 35, pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$', description: 'BCP 47 language tag such as en, pt-BR or zh-Hant-TW' },
    currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217 code: three upper-case letters' },
    timezone: { type: 'string', minLength: 1, maxLength: 64, description: 'IANA time zone such as Europe/Paris or UTC' },
    contact_email: { type: 'string', nullable: true, format: 'email', maxLength: 320, description: 'Contact email' },
    website: { type: 'string', nullable: true, format: 'uri', pattern: '^https://', maxLength: 2000, description: 'https URL of the public website' },
    contact_phone: { type: 'string', nullable: true, pattern: '^\\+?[0-9 ()./-]{3,40}$', description: 'Contact phone number' },
    legal_name: nullableString('Registered legal name', 200),
    address: nullableString('Postal address', 1000),
    mcp_student_pseudonyms: { type: 'boolean', description: 'true: every MCP answer shows students by pseudonyms' },
  },
};

/** school:read shows the private fields; without it only the public ones. */
function canReadSchool(request: FastifyRequest): boolean {
  return request.caller.kind === 'token' && request.caller.scopes.has('school:read');
}

/** GET and PATCH /api/v1/school: the school's settings. */
export function registerSchoolRoutes(app: FastifyInstance, deps: Deps): void {
  const school = new SchoolSettingsService(deps);
  const tags = ['school'];
  const path = `${API_PREFIX}/school`;

  declareRoute(app, deps, {
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
  }, async (request) => school.view(canReadSchool(request)));

  declareRoute(app, deps, {
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
  }, async (request) => {
    const patch = request.body as SchoolPatch;
    const before = patch.mcp_student_pseudonyms === undefined ? undefined : (await school.read()).mcp_student_pseudonyms;
    const next = await school.update(patch);
    // Who changed the privacy floor of every agent, and how, stays on record.
    if (before !== undefined && before !== next.mcp_student_pseudonyms && request.caller.kind === 'token') {
      request.log.warn({ event: 'mcp_student_pseudonyms_changed', to: next.mcp_student_pseudonyms, user_id: request.caller.userId, client_id: request.caller.clientId }, 'learner pseudonyms for agents changed');
    }
    return projectSchool(next, canReadSchool(request));
  });
}
