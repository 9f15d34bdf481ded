import { z } from 'zod';
import type { Scope } from '../../access/scopes.ts';
import { AREA_LIST, type AreaDef, type AreaName } from '../../platform/areas.ts';
import { OAuthError } from '../../oauth/errors.ts';
import { PlatformError } from '../../platform/errors.ts';
import type { FieldDef } from '../../platform/fields.ts';
import { viewFor } from '../../platform/records.ts';
import { checkArguments } from '../arguments.ts';
import { didYouMean } from '../../http/requests/input-issues.ts';
import { createSchema } from '../../platform/field-schemas.ts';
import { bulletList } from '../format.ts';
import { learnerRule } from '../learner-data.ts';
import { TOOLSETS } from '../toolsets.ts';
import { defineTool, type ToolAccess, type ToolContext, type ToolDef } from '../tool.ts';

/** A list answers this many records unless asked for more, and never more than LIST_MAX: answers stay small. */
export const LIST_DEFAULT = 10;
export const LIST_MAX = 50;

/**
 * The record tools: five tools over every area, keyed by the area's name or
 * by a record's prefixed id (crs_ a course, stu_ a student). They replace
 * five tools per area, so the twenty areas cost five tool definitions; each
 * caller's list names only the areas its token and toolsets reach.
 */

/** "crs_abc" → the courses area. */
export function areaOfId(id: unknown): AreaDef | undefined {
  if (typeof id !== 'string') return undefined;
  const prefix = id.slice(0, id.indexOf('_'));
  return AREA_LIST.find((a) => a.idPrefix === prefix);
}

const areaNamed = (name: unknown): AreaDef | undefined => AREA_LIST.find((a) => a.name === name);

/** Long text (descriptions, bodies, lesson content, notes): left out of list answers unless asked for. */
const isLong = (f: FieldDef) => f.type === 'text';

const fieldNames = (area: AreaDef) => ['id', ...Object.keys(area.fields), 'created_at', 'updated_at'];

/** The record with only `fields` (and always its id); without them all of it, or for a concise list all but long text. */
function project(area: AreaDef, record: Record<string, unknown>, fields: string[] | undefined, concise: boolean): Record<string, unknown> {
  const keep = (name: string) => name === 'id' || (fields ? fields.includes(name) : !(concise && area.fields[name] && isLong(area.fields[name])));
  return Object.fromEntries(Object.entries(record).filter(([name]) => keep(name)));
}

/** One readable line per record: its title, name or code, its email, and its id and status. */
export function line(record: Record<string, unknown>): string {
  const head = ['title', 'name', 'code'].map((k) => record[k]).find((v) => typeof v === 'string' && v);
  const email = typeof record.email === 'string' ? `<${record.email}>` : undefined;
  const shown = [head, email].filter(Boolean).join(' ') || String(record.id);
  return `${shown} (id ${String(record.id)}${typeof record.status === 'string' ? `, ${record.status}` : ''})`;
}

function readView(ctx: ToolContext, area: AreaDef) {
  const view = viewFor(area, ctx.caller);
  // The bearer guard has already refused a caller without the read scope of an area without a public view.
  if (!view) throw new OAuthError('insufficient_scope', `This needs ${area.readScope}`);
  return view;
}

/** The area a call names, or a refusal that lists the areas. */
function areaArgument(name: string): AreaDef {
  const area = areaNamed(name);
  if (!area)
    throw new PlatformError(
      'invalid_request',
      `area: no area "${name}"${didYouMean(
        name,
        AREA_LIST.map((a) => a.name),
      )}`,
    );
  return area;
}

function areaOfIdArgument(id: string): AreaDef {
  const area = areaOfId(id);
  if (!area)
    throw new PlatformError('invalid_request', `id: "${id.slice(0, 100)}" is not a record id; ids start with the area's prefix (${AREA_LIST.map((a) => `${a.idPrefix}_ ${a.label}`).join(', ')})`);
  return area;
}

function checkFieldNames(area: AreaDef, names: string[] | undefined): void {
  for (const name of names ?? []) {
    if (!fieldNames(area).includes(name))
      throw new PlatformError('invalid_request', `fields: ${area.label} records have no field "${name}"${didYouMean(name, fieldNames(area))} (fields: ${fieldNames(area).join(', ')})`);
  }
}

/** A record's values for a write, checked as the REST body is: the same fields, types and bounds, unknown ones refused. */
const valueSchemas = new Map<string, z.ZodType>();

export function checkValues(area: AreaDef, values: unknown, mode: 'create' | 'update', setByTool: readonly string[] = []): Record<string, unknown> {
  const key = `${area.name}:${mode}:${setByTool.join(',')}`;
  let schema = valueSchemas.get(key);
  if (!schema) {
    // The REST create body, every field optional for an update, without the fields the tool sets itself.
    const body = mode === 'update' ? createSchema(area.fields).partial() : createSchema(area.fields);
    valueSchemas.set(key, (schema = z.strictObject(Object.fromEntries(Object.entries(body.shape).filter(([name]) => !setByTool.includes(name))))));
  }
  const checked = checkArguments(schema, values, `${area.label} field`) as Record<string, unknown>;
  // Arguments left out are absent, not undefined: a write sees only what was given.
  return Object.fromEntries(Object.entries(checked).filter(([, v]) => v !== undefined));
}

const dryRunInput = () => z.boolean().default(false).describe('true: check everything as the real write does and show the result, writing nothing');

/** The areas the caller's toolsets reach, and of those the ones it may read or write. */
export function reachableAreas(access: ToolAccess, op: 'read' | 'write'): AreaDef[] {
  const names = new Set<AreaName>([...access.toolsets].flatMap((t) => [...TOOLSETS[t].areas]));
  return AREA_LIST.filter((a) => {
    if (!names.has(a.name as AreaName)) return false;
    if (op === 'read') return Boolean(a.publicRead) || access.scopes.has(a.readScope);
    return !access.readOnly && a.writeScope !== undefined && access.scopes.has(a.writeScope);
  });
}

const areaEnum = (areas: AreaDef[]) => z.enum(areas.map((a) => a.name) as [string, ...string[]]);
const prefixes = (areas: AreaDef[]) => areas.map((a) => `${a.idPrefix}_ ${a.label}`).join(', ');
const idInput = (areas: AreaDef[]) =>
  z
    .string()
    .min(5)
    .max(100)
    .describe(`A record id; its prefix names the area (${prefixes(areas)})`);
const fieldsInput = () => z.array(z.string().max(64)).max(40).optional().describe('Only these fields (id always)');
const someoneSees = (areas: AreaDef[]) => areas.some((a) => learnerRule(a.name));

/** The write scope of the area a call's `id` names (update_record, delete_record). */
function writeScopeOfId(args: unknown): Scope[] {
  const area = areaOfId((args as { id?: unknown } | undefined)?.id);
  return area?.writeScope ? [area.writeScope] : [];
}

/** The tool over the areas a caller reaches, or none when it reaches none. */
const listedOver = (open: AreaDef[], build: (areas: AreaDef[]) => ToolDef): ToolDef | undefined => (open.length ? build(open) : undefined);

function readScopesOf(area: AreaDef | undefined): Scope[] {
  return area && !area.publicRead ? [area.readScope] : [];
}

function listRecords(areas: AreaDef[]): ToolDef {
  return defineTool({
    name: 'list_records',
    title: 'List records',
    description: `Lists one area's records, ${LIST_DEFAULT} at a time, oldest first, long text only with detail. Without the area's read scope, ${AREA_LIST.filter((a) => a.publicRead)
      .map((a) => a.name)
      .join(', ')} show published records and public fields.`,
    toolset: 'catalog',
    scopes: [],
    optionalScopes: AREA_LIST.filter((a) => a.publicRead).map((a) => a.readScope),
    argumentScopes: (args) => readScopesOf(areaNamed((args as { area?: unknown } | undefined)?.area)),
    listedFor: (access) => listedOver(reachableAreas(access, 'read'), listRecords),
    showsLearners: someoneSees(areas),
    readOnly: true,
    input: {
      area: areaEnum(areas),
      q: z.string().max(200).optional().describe('Words to look for in titles, names and other searchable text'),
      filters: z
        .record(z.string(), z.union([z.string().max(320), z.number(), z.boolean()]))
        .optional()
        .describe('Equality filters by field, such as status, slug, course_id or student_id; an unknown one is refused naming the fields the area filters by'),
      cursor: z.string().max(500).optional().describe('next_cursor of the previous answer'),
      limit: z.number().int().min(1).max(LIST_MAX).default(LIST_DEFAULT).describe(`1-${LIST_MAX}`),
      fields: fieldsInput(),
      detail: z.boolean().default(false).describe('true: every field, long text included'),
    },
    async run(ctx, args) {
      const area = areaArgument(args.area);
      checkFieldNames(area, args.fields);
      const filterable = Object.entries(area.fields)
        .filter(([, f]) => f.filter)
        .map(([n]) => n);
      const filters: Record<string, string> = {};
      for (const [name, value] of Object.entries(args.filters ?? {})) {
        if (!filterable.includes(name))
          throw new PlatformError(
            'invalid_request',
            `filters: ${area.label} records cannot be filtered by "${name}"${filterable.length ? `; the filters are ${filterable.join(', ')}` : '; they have no filters'}`,
          );
        filters[name] = String(value);
      }
      const page = await ctx.records.list(area, readView(ctx, area), {
        limit: args.limit,
        filters,
        ...(args.cursor ? { cursor: args.cursor } : {}),
        ...(args.q ? { q: args.q } : {}),
      });
      const data = page.data.map((r) => project(area, r, args.fields, !args.detail));
      const summary = data.length
        ? `${data.length} ${area.label}${data.length === 1 ? '' : 's'}${page.next_cursor ? ', more with next_cursor' : ''}:\n${bulletList(data, line)}`
        : `No ${area.label}s found.`;
      return { structured: { area: area.name, records: data, ...(page.next_cursor ? { next_cursor: page.next_cursor } : {}) }, text: summary };
    },
  });
}

function getRecord(areas: AreaDef[]): ToolDef {
  return defineTool({
    name: 'get_record',
    title: 'Get a record',
    description: 'One record of any area by its id, every field unless fields names some. A course also shows its curriculum with get_course.',
    toolset: 'catalog',
    scopes: [],
    argumentScopes: (args) => readScopesOf(areaOfId((args as { id?: unknown } | undefined)?.id)),
    listedFor: (access) => listedOver(reachableAreas(access, 'read'), getRecord),
    showsLearners: someoneSees(areas),
    readOnly: true,
    input: { id: idInput(areas), fields: fieldsInput() },
    async run(ctx, args) {
      const area = areaOfIdArgument(args.id);
      checkFieldNames(area, args.fields);
      const record = project(area, await ctx.records.get(area, readView(ctx, area), args.id), args.fields, false);
      return { structured: { area: area.name, record }, text: `${area.label} ${line(record)}` };
    },
  });
}

function createRecord(areas: AreaDef[]): ToolDef {
  const required = areas
    .map(
      (a) =>
        [
          a.name,
          Object.entries(a.fields)
            .filter(([, f]) => f.required && !f.readOnly)
            .map(([n]) => n),
        ] as const,
    )
    .map(([name, names]) => `${name}: ${names.join(', ') || '-'}`)
    .join('; ');
  return defineTool({
    name: 'create_record',
    title: 'Create a record',
    description: `Creates a record from values as POST /api/v1/{area} takes them (the fields of each area are the resource lyceum://schema/{area}; an unknown one is refused naming the right ones). Required: ${required}. With dry_run it is checked and shown, not stored.`,
    toolset: 'courses',
    scopes: [],
    argumentScopes: (args) => {
      const area = areaNamed((args as { area?: unknown } | undefined)?.area);
      return area?.writeScope ? [area.writeScope] : [];
    },
    listedFor: (access) => listedOver(reachableAreas(access, 'write'), createRecord),
    showsLearners: someoneSees(areas),
    readOnly: false,
    idempotent: false,
    input: { area: areaEnum(areas), values: z.record(z.string(), z.unknown()).describe("The record's fields"), dry_run: dryRunInput() },
    async run(ctx, args) {
      const area = writableArea(areaArgument(args.area));
      const record = await ctx.records.create(area, checkValues(area, args.values, 'create'), { dryRun: args.dry_run });
      return { structured: { dry_run: args.dry_run, area: area.name, record }, text: `${args.dry_run ? 'Would create' : 'Created'} ${area.label} ${line(record)}.` };
    },
  });
}

function writableArea(area: AreaDef): AreaDef & { writeScope: Scope } {
  if (!area.writeScope) throw new PlatformError('invalid_request', `${area.label} records are read-only here: they come from the school's own processes`);
  return area as AreaDef & { writeScope: Scope };
}

function updateRecord(areas: AreaDef[]): ToolDef {
  return defineTool({
    name: 'update_record',
    title: 'Change a record',
    description:
      'Changes the given values of a record (null clears an optional one), as PATCH /api/v1/{area}/{id} does, and says which fields changed. With dry_run it is checked and the result shown, not stored.',
    toolset: 'courses',
    scopes: [],
    argumentScopes: writeScopeOfId,
    listedFor: (access) => listedOver(reachableAreas(access, 'write'), updateRecord),
    showsLearners: someoneSees(areas),
    readOnly: false,
    idempotent: true,
    input: { id: idInput(areas), values: z.record(z.string(), z.unknown()).describe('The fields to change'), dry_run: dryRunInput() },
    async run(ctx, args) {
      const area = writableArea(areaOfIdArgument(args.id));
      const patch = checkValues(area, args.values, 'update');
      // As the REST body's minProperties: 1.
      if (Object.keys(patch).length === 0) throw new PlatformError('invalid_request', 'values: give at least one field to change');
      const before = await ctx.records.get(area, 'full', args.id);
      const after = await ctx.records.update(area, args.id, patch, { dryRun: args.dry_run });
      const changed = Object.keys(patch).filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
      return {
        structured: { dry_run: args.dry_run, area: area.name, changed, record: after },
        text: `${args.dry_run ? 'Would change' : 'Changed'} ${changed.length ? changed.join(', ') : 'nothing'} on ${area.label} ${line(after)}.`,
      };
    },
  });
}

function deleteRecord(areas: AreaDef[]): ToolDef {
  const cascading = areas.filter((a) => a.onDelete?.cascade?.length).map((a) => `${a.label} its ${a.onDelete!.cascade!.map(([t]) => t.replace(/_/g, ' ')).join(' and ')}`);
  return defineTool({
    name: 'delete_record',
    title: 'Delete a record',
    description: `Deletes a record by id, as DELETE /api/v1/{area}/{id} does${cascading.length ? `; deleting takes with it: ${cascading.join('; ')}` : ''}. Refused while other records still need it. With dry_run it is checked, not deleted.`,
    toolset: 'courses',
    scopes: [],
    argumentScopes: writeScopeOfId,
    listedFor: (access) => listedOver(reachableAreas(access, 'write'), deleteRecord),
    readOnly: false,
    destroys: (args) => {
      const area = areaOfId(args.id);
      return { recordType: area?.name ?? 'record', recordId: String(args.id), label: `${area?.label ?? 'record'} ${String(args.id)}` };
    },
    idempotent: true,
    input: { id: idInput(areas), dry_run: dryRunInput() },
    async run(ctx, args) {
      const area = writableArea(areaOfIdArgument(args.id));
      await ctx.records.delete(area, args.id, { dryRun: args.dry_run });
      return { structured: { dry_run: args.dry_run, deleted: args.id }, text: `${args.dry_run ? 'Would delete' : 'Deleted'} ${area.label} ${args.id}.` };
    },
  });
}

/** The record tools over every area: what a call is checked and run with, whatever list the caller saw. */
export const RECORD_TOOLS: readonly ToolDef[] = [
  listRecords(AREA_LIST),
  getRecord(AREA_LIST),
  createRecord(AREA_LIST.filter((a) => a.writeScope)),
  updateRecord(AREA_LIST.filter((a) => a.writeScope)),
  deleteRecord(AREA_LIST.filter((a) => a.writeScope)),
];
