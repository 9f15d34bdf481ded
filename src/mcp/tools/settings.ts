import { z } from 'zod';
import { PlatformError } from '../../platform/errors.ts';
import { AppearanceService, type AppearancePatch } from '../../platform/appearance.ts';
import { APPEARANCE_PATCH_SCHEMA } from '../../platform/routes/appearance-routes.ts';
import { SCHOOL_PATCH_SCHEMA } from '../../platform/routes/school-routes.ts';
import { projectSchool, SchoolSettingsService, type SchoolPatch } from '../../platform/school-settings.ts';
import { defineTool, type ToolContext } from '../tool.ts';

/**
 * The school's settings and appearance, through the services and with the
 * body and answer schemas of GET and PATCH /api/v1/school and /appearance:
 * the same checks, the same views.
 */

const dryRun = () => z.boolean().default(false).describe('true: check the change as the real one is checked and show the result, storing nothing');

const lines = (record: Record<string, unknown>) =>
  Object.entries(record)
    .map(([k, v]) => `${k}: ${v === null ? '—' : String(v)}`)
    .join('\n');

const readsSchool = (ctx: ToolContext) => ctx.caller.kind === 'token' && ctx.caller.scopes.has('school:read');

const defined = <T extends object>(args: T) => Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined));

export const getSchoolSettings = defineTool({
  name: 'get_school_settings',
  toolset: 'site',
  title: 'School settings',
  description:
    "The school's settings as GET /api/v1/school shows them. No scope needed: without school:read only the public fields (name, description, locale, currency, timezone, website); with school:read also the contact details, legal name and address.",
  scopes: [],
  optionalScopes: ['school:read'],
  readOnly: true,
  input: {},
  async run(ctx) {
    const school = await new SchoolSettingsService(ctx.deps).view(readsSchool(ctx));
    return { structured: school, text: lines(school) };
  },
});

export const updateSchoolSettings = defineTool({
  name: 'update_school_settings',
  toolset: 'site',
  title: 'Change school settings',
  description:
    'Changes the named school settings (null clears an optional one), as PATCH /api/v1/school does. With dry_run true the change is checked the same way and shown, not stored. The answer shows the private fields only with school:read.',
  scopes: ['school:write'],
  optionalScopes: ['school:read'],
  readOnly: false,
  idempotent: true,
  input: { ...SCHOOL_PATCH_SCHEMA.shape, dry_run: dryRun() },
  async run(ctx, args: Record<string, unknown>) {
    const { dry_run: dry, ...patch } = args;
    const service = new SchoolSettingsService(ctx.deps);
    // Learner pseudonyms are the school's floor for every agent: an agent may raise it, never
    // lower it for itself and the others. Staff turn it off through the API.
    if (patch.mcp_student_pseudonyms === false && (await service.read()).mcp_student_pseudonyms === true) {
      throw new PlatformError('invalid_request', "mcp_student_pseudonyms: an agent cannot turn learner pseudonyms off; the school's staff do that through the API (PATCH /api/v1/school)");
    }
    const next = projectSchool(await service.update(defined(patch) as SchoolPatch, { dryRun: dry === true }), readsSchool(ctx));
    return { structured: { ...next, dry_run: dry === true }, text: `${dry ? 'Would store' : 'Stored'}:\n${lines(next)}` };
  },
});

export const getAppearance = defineTool({
  name: 'get_appearance',
  toolset: 'site',
  title: 'School appearance',
  description: "The school's theme, colours and logo as GET /api/v1/appearance shows them. No scope needed: all of it is public.",
  scopes: [],
  readOnly: true,
  input: {},
  async run(ctx) {
    const appearance: Record<string, unknown> = { ...(await new AppearanceService(ctx.deps).view()) };
    return { structured: appearance, text: lines(appearance) };
  },
});

export const updateAppearance = defineTool({
  name: 'update_appearance',
  toolset: 'site',
  title: 'Change the appearance',
  description:
    "Changes the school's theme, colours or logo, as PATCH /api/v1/appearance does (logo_url and logo_file_id exclude each other). With dry_run true the change is checked the same way and shown, not stored.",
  scopes: ['appearance:write'],
  readOnly: false,
  idempotent: true,
  input: { ...APPEARANCE_PATCH_SCHEMA.shape, dry_run: dryRun() },
  async run(ctx, args: Record<string, unknown>) {
    const { dry_run: dry, ...patch } = args;
    const next: Record<string, unknown> = { ...(await new AppearanceService(ctx.deps).update(defined(patch) as AppearancePatch, { dryRun: dry === true })) };
    return { structured: { ...next, dry_run: dry === true }, text: `${dry ? 'Would store' : 'Stored'}:\n${lines(next)}` };
  },
});
