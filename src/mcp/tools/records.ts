import type { z } from 'zod';
import { aLabel, AREA_LIST, type AreaDef } from '../../platform/areas.ts';
import { OAuthError } from '../../oauth/errors.ts';
import { PlatformError } from '../../platform/errors.ts';
import type { FieldDef } from '../../platform/fields.ts';
import { viewFor } from '../../platform/records.ts';
import { bulletList } from '../format.ts';
import { fieldInput, recordOutput } from '../field-schemas.ts';
import { defineTool, type ToolContext, type ToolDef, type Zod } from '../tool.ts';

/** A list answers this many records unless asked for more, and never more than LIST_MAX: answers stay small. */
export const LIST_DEFAULT = 10;
export const LIST_MAX = 50;

/** "membership plan" → "membership_plan": the noun of an area's single-record tools. */
export const labelKey = (area: AreaDef) => area.label.replace(/ /g, '_');

/** Long text (descriptions, bodies, lesson content, notes): left out of list answers unless `fields` names it. */
const isLong = (f: FieldDef) => f.type === 'text';

const fieldNames = (area: AreaDef) => [...Object.keys(area.fields), 'created_at', 'updated_at'];

/** The record with only `fields` (and always its id); without `fields`, all of it, or for lists all but long text. */
function project(area: AreaDef, record: Record<string, unknown>, fields: string[] | undefined, inList: boolean): Record<string, unknown> {
  const keep = (name: string) => name === 'id' || (fields ? fields.includes(name) : !(inList && area.fields[name] && isLong(area.fields[name])));
  return Object.fromEntries(Object.entries(record).filter(([name]) => keep(name)));
}

/** One readable line per record: its title, name or code, its email, and its id and status. */
function line(record: Record<string, unknown>): string {
  const head = ['title', 'name', 'code'].map((k) => record[k]).find((v) => typeof v === 'string' && v);
  const email = typeof record.email === 'string' ? `<${record.email}>` : undefined;
  const shown = [head, email].filter(Boolean).join(' ') || String(record.id);
  return `${shown} (id ${String(record.id)}${typeof record.status === 'string' ? `, ${record.status}` : ''})`;
}

const fieldsInput = (zod: Zod, area: AreaDef) =>
  zod
    .array(zod.enum(fieldNames(area) as [string, ...string[]]))
    .max(fieldNames(area).length)
    .optional()
    .describe('Only these fields in the answer (id is always there)');

/**
 * Who may read an area anyone may read, and what they see. (A tool that needs scopes has them
 * named by the server, after its description.)
 */
function readers(area: AreaDef): string {
  return area.publicRead
    ? ` No scope needed: without ${area.readScope} it shows ${area.publicRead.published ? 'published ' : ''}${area.label}s${area.publicRead.upcoming ? ' still to come' : ''} with their public fields only; with ${area.readScope} all of them, every field.`
    : '';
}

function readView(ctx: ToolContext, area: AreaDef) {
  const view = viewFor(area, ctx.caller);
  // As on /api/v1: the bearer guard has already refused a caller without the read scope on an area
  // without a public view, so this only narrows the type.
  if (!view) throw new OAuthError('insufficient_scope', `This needs ${area.readScope}`);
  return view;
}

function listTool(area: AreaDef): ToolDef {
  const filters = Object.entries(area.fields).filter(([, f]) => f.filter);
  const searchable = Object.entries(area.fields).filter(([, f]) => f.search).map(([n]) => n);
  return defineTool({
    name: `list_${area.name}`,
    title: `List ${area.label}s`,
    description: `Lists ${area.label}s, ${LIST_DEFAULT} at a time by default, oldest first${area.sort ? ` by ${area.sort}` : ''}${searchable.length ? `; q searches ${searchable.join(', ')}` : ''}${filters.length ? `; filters: ${filters.map(([n]) => n).join(', ')}` : ''}. Long text fields are left out unless named in fields.${readers(area)}`,
    scopes: area.publicRead ? [] : [area.readScope],
    optionalScopes: area.publicRead ? [area.readScope] : [],
    readOnly: true,
    input: (zod) => {
      const shape: Record<string, z.ZodType> = {};
      if (searchable.length) shape.q = zod.string().max(200).optional().describe(`Words to look for in ${searchable.join(', ')}`);
      for (const [name, f] of filters) {
        const described = `Only ${area.label}s with this ${name}: ${f.description}`;
        if (f.type === 'enum') shape[name] = zod.enum(f.enum as [string, ...string[]]).optional().describe(described);
        else if (f.type === 'boolean') shape[name] = zod.boolean().optional().describe(described);
        // As the REST list's query parameter: any string of up to 320 characters.
        else shape[name] = zod.string().max(320).optional().describe(described);
      }
      shape.cursor = zod.string().max(500).optional().describe('next_cursor of the previous answer, for the next page');
      shape.limit = zod.number().int().min(1).max(LIST_MAX).default(LIST_DEFAULT).describe(`How many (1-${LIST_MAX}, default ${LIST_DEFAULT})`);
      shape.fields = fieldsInput(zod, area);
      return shape;
    },
    output: (zod) => ({ [area.name]: zod.array(recordOutput(zod, area.fields)), next_cursor: zod.string().optional() }),
    async run(ctx, args: Record<string, unknown>) {
      const given = Object.fromEntries(filters.filter(([name]) => args[name] !== undefined).map(([name]) => [name, String(args[name])]));
      const page = await ctx.records.list(area, readView(ctx, area), {
        limit: args.limit as number,
        filters: given,
        ...(typeof args.cursor === 'string' ? { cursor: args.cursor } : {}),
        ...(typeof args.q === 'string' && args.q ? { q: args.q } : {}),
      });
      const data = page.data.map((r) => project(area, r, args.fields as string[] | undefined, true));
      return {
        structured: { [area.name]: data, ...(page.next_cursor ? { next_cursor: page.next_cursor } : {}) },
        text: bulletList(data, line, page.next_cursor),
      };
    },
  });
}

function getTool(area: AreaDef): ToolDef {
  const key = labelKey(area);
  return defineTool({
    name: `get_${key}`,
    title: `Get ${aLabel(area)}`,
    description: `One ${area.label} by id, every field unless fields names some.${readers(area)}`,
    scopes: area.publicRead ? [] : [area.readScope],
    optionalScopes: area.publicRead ? [area.readScope] : [],
    readOnly: true,
    input: (zod) => ({ id: zod.string().min(1).max(100).describe(`The ${area.label}'s id (${area.idPrefix}_...)`), fields: fieldsInput(zod, area) }),
    output: (zod) => ({ [key]: recordOutput(zod, area.fields) }),
    async run(ctx, args) {
      const record = project(area, await ctx.records.get(area, readView(ctx, area), args.id), args.fields, false);
      return { structured: { [key]: record }, text: `${line(record)}\n${JSON.stringify(record)}` };
    },
  });
}

const dryRunInput = (zod: Zod) => zod.boolean().default(false).describe('true: check everything as the real write does and show the result, writing nothing');

/** The fields a write tool takes: every field but the server-set ones, as the REST body does. */
function writableFields(area: AreaDef, zod: Zod, allOptional: boolean): z.ZodRawShape {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, f] of Object.entries(area.fields)) {
    if (f.readOnly) continue;
    const schema = fieldInput(zod, f);
    shape[name] = allOptional || !f.required ? schema.optional() : schema;
  }
  return shape;
}

const writeOutput = (zod: Zod, area: AreaDef) => ({ dry_run: zod.boolean(), [labelKey(area)]: recordOutput(zod, area.fields) });

function createTool(area: AreaDef, scope: NonNullable<AreaDef['writeScope']>): ToolDef {
  const key = labelKey(area);
  return defineTool({
    name: `create_${key}`,
    title: `Create ${aLabel(area)}`,
    description: `Creates ${aLabel(area)} from the given fields, as POST /api/v1${area.path} does. With dry_run true it is checked the same way and shown, not stored.`,
    scopes: [scope],
    readOnly: false,
    idempotent: false,
    input: (zod) => ({ ...writableFields(area, zod, false), dry_run: dryRunInput(zod) }),
    output: (zod) => writeOutput(zod, area),
    async run(ctx, args: Record<string, unknown>) {
      const { dry_run: dryRun, ...input } = args;
      const record = await ctx.records.create(area, definedOnly(input), { dryRun: dryRun === true });
      return { structured: { dry_run: dryRun === true, [key]: record }, text: `${dryRun ? 'Would create' : 'Created'} ${area.label} ${line(record)}.` };
    },
  });
}

function updateTool(area: AreaDef, scope: NonNullable<AreaDef['writeScope']>): ToolDef {
  const key = labelKey(area);
  return defineTool({
    name: `update_${key}`,
    title: `Change ${aLabel(area)}`,
    description: `Changes the given fields of ${aLabel(area)} (null clears an optional one), as PATCH /api/v1${area.path}/{id} does. With dry_run true it is checked the same way and the result shown, not stored.`,
    scopes: [scope],
    readOnly: false,
    idempotent: true,
    input: (zod) => ({ id: zod.string().min(1).max(100).describe(`The ${area.label}'s id`), ...writableFields(area, zod, true), dry_run: dryRunInput(zod) }),
    output: (zod) => ({ ...writeOutput(zod, area), changed: zod.array(zod.string()).describe('The fields whose value differs from before') }),
    async run(ctx, args: Record<string, unknown>) {
      const { id, dry_run: dryRun, ...rest } = args as { id: string; dry_run: boolean } & Record<string, unknown>;
      const patch = definedOnly(rest);
      // As the REST body's minProperties: 1.
      if (Object.keys(patch).length === 0) throw new PlatformError('invalid_request', 'Give at least one field to change');
      const before = await ctx.records.get(area, 'full', id);
      const after = await ctx.records.update(area, id, patch, { dryRun });
      const changed = Object.keys(patch).filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
      return {
        structured: { dry_run: dryRun, changed, [key]: after },
        text: `${dryRun ? 'Would change' : 'Changed'} ${changed.length ? changed.join(', ') : 'nothing'} on ${area.label} ${line(after)}.`,
      };
    },
  });
}

function deleteTool(area: AreaDef, scope: NonNullable<AreaDef['writeScope']>): ToolDef {
  const cascades = (area.onDelete?.cascade ?? []).map(([table]) => table.replace(/_/g, ' '));
  const restricts = (area.onDelete?.restrict ?? []).map(([table]) => table.replace(/_/g, ' '));
  return defineTool({
    name: `delete_${labelKey(area)}`,
    title: `Delete ${aLabel(area)}`,
    description: `Deletes ${aLabel(area)}${cascades.length ? ` and its ${cascades.join(' and ')}` : ''}, as DELETE /api/v1${area.path}/{id} does${restricts.length ? `; refused while it has ${restricts.join(' or ')}` : ''}. With dry_run true it is checked, not deleted.`,
    scopes: [scope],
    readOnly: false,
    destructive: true,
    idempotent: true,
    input: (zod) => ({ id: zod.string().min(1).max(100).describe(`The ${area.label}'s id`), dry_run: dryRunInput(zod) }),
    output: (zod) => ({ dry_run: zod.boolean(), deleted: zod.string().describe('The id of the deleted (or, with dry_run, deletable) record') }),
    async run(ctx, args) {
      await ctx.records.delete(area, args.id, { dryRun: args.dry_run });
      return { structured: { dry_run: args.dry_run, deleted: args.id }, text: `${args.dry_run ? 'Would delete' : 'Deleted'} ${area.label} ${args.id}.` };
    },
  });
}

/** Arguments the caller left out are absent, not undefined: a write sees only what was given. */
const definedOnly = (input: Record<string, unknown>) => Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));

/** The tools of one area: list and get, and create, update and delete when the area is writable. */
export function areaTools(area: AreaDef): ToolDef[] {
  const tools = [listTool(area), getTool(area)];
  if (area.writeScope) tools.push(createTool(area, area.writeScope), updateTool(area, area.writeScope), deleteTool(area, area.writeScope));
  return tools;
}

/** Every area's tools, in the order of AREAS. */
export const RECORD_TOOLS: readonly ToolDef[] = AREA_LIST.flatMap(areaTools);
