import type { Deps } from '../deps.ts';
import type { AreaDef } from '../platform/areas.ts';
import { PlatformError } from '../platform/errors.ts';
import { RecordService, type ListParams, type Page, type View } from '../platform/records.ts';
import { SchoolSettingsService } from '../platform/school-settings.ts';
import type { Row } from '../store/types.ts';
import { learnerRule, type LearnerRule } from './learner-data.ts';
import { isPseudonymValue, pseudonymsFor, type Pseudonyms } from './pseudonyms.ts';
import type { ToolContext, Zod } from './tool.ts';

/**
 * RecordService as an MCP tool sees it while learners are pseudonymized:
 * every record it hands out, written ones included, shows learners by their
 * pseudonyms (learner-data.ts). Every method a tool can call is overridden
 * here and delegates to the real service.
 *
 * - Searching and filtering never look at a learner field: a search that
 *   answered with pseudonyms would still let an agent learn a real name
 *   letter by letter (does "q=al" match? "q=ali"?). A filter on such a field
 *   is refused, and so is a search of an area whose every searchable field
 *   is one (students); elsewhere the search looks at the other fields only.
 * - Writes store what they are given, but never a pseudonym: in an update, a
 *   field that repeats the record's own pseudonym (an agent sending back a
 *   record it read) is left unchanged, and any other pseudonym in a learner
 *   field is refused.
 */
export class PseudonymousRecords extends RecordService {
  constructor(
    deps: Deps,
    private readonly inner: RecordService,
    private readonly pseudonyms: Pseudonyms,
  ) {
    super(deps);
  }

  override async list(area: AreaDef, view: View, params: ListParams = {}): Promise<Page> {
    const rule = learnerRule(area.name);
    if (!rule) return this.inner.list(area, view, params);
    const page = await this.inner.list(withoutLearnerSearch(area, rule, params), view, params);
    return { ...page, data: page.data.map((r) => rule.apply(r, this.pseudonyms)) };
  }

  override async get(area: AreaDef, view: View, id: string): Promise<Record<string, unknown>> {
    return this.shown(area, await this.inner.get(area, view, id));
  }

  override async getRow(area: AreaDef, view: View, id: string): Promise<Row> {
    return this.shown(area, await this.inner.getRow(area, view, id)) as Row;
  }

  override async create(area: AreaDef, input: Record<string, unknown>): Promise<Record<string, unknown>> {
    refusePseudonyms(area, input);
    return this.shown(area, await this.inner.create(area, input));
  }

  override async update(area: AreaDef, id: string, input: Record<string, unknown>): Promise<Record<string, unknown>> {
    const rule = learnerRule(area.name);
    let patch = input;
    if (rule && rule.fields.some((f) => f in input)) {
      const current = rule.apply(await this.inner.get(area, 'full', id), this.pseudonyms);
      patch = Object.fromEntries(Object.entries(input).filter(([k, v]) => !(rule.fields.includes(k) && JSON.stringify(v) === JSON.stringify(current[k]))));
      refusePseudonyms(area, patch);
    }
    return this.shown(area, await this.inner.update(area, id, patch));
  }

  override async delete(area: AreaDef, id: string): Promise<void> {
    return this.inner.delete(area, id);
  }

  private shown(area: AreaDef, record: Record<string, unknown>): Record<string, unknown> {
    const rule = learnerRule(area.name);
    return rule ? rule.apply(record, this.pseudonyms) : record;
  }
}

/** The area as the search sees it: learner fields are not searched; a filter on one is refused. */
function withoutLearnerSearch(area: AreaDef, rule: LearnerRule, params: ListParams): AreaDef {
  for (const name of Object.keys(params.filters ?? {})) {
    if (rule.fields.includes(name) && area.fields[name]?.filter) {
      throw new PlatformError('invalid_request', `${area.label} records cannot be filtered by ${name} while learners are shown by pseudonyms`);
    }
  }
  const fields = Object.fromEntries(Object.entries(area.fields).map(([n, f]) => [n, rule.fields.includes(n) && f.search ? { ...f, search: false } : f]));
  if (params.q && !Object.values(fields).some((f) => f.search)) {
    throw new PlatformError('invalid_request', `${area.label} records cannot be searched by name or email while learners are shown by pseudonyms`);
  }
  return { ...area, fields };
}

/** A pseudonym is what an answer showed, never a learner's real data: it is not stored. */
function refusePseudonyms(area: AreaDef, input: Record<string, unknown>): void {
  const rule = learnerRule(area.name);
  for (const name of rule?.fields ?? []) {
    if (isPseudonymValue(input[name])) {
      throw new PlatformError('invalid_request', `${name}: "${String(input[name])}" is a pseudonym shown in place of a learner's ${name}, not a value to store; leave the field out to keep the real one`);
    }
  }
}

/** The input every tool accepts, added where the tools are registered (server.ts). */
export const pseudonymizeOption = (z: Zod) =>
  z
    .boolean()
    .optional()
    .describe(
      'true: show students by stable pseudonyms (such as "Student 3F9A0C17B2", 3f9a0c17b2@students.invalid) instead of their names and emails; ids stay real. A school can make this the rule for every call, and then false does not turn it off.',
    );

/**
 * The tool context of one call: with pseudonymized records when the call asks
 * for it or the school's setting `mcp_student_pseudonyms` is on. The setting
 * is a floor: a call can turn pseudonyms on, never off.
 */
export async function withPseudonyms(ctx: ToolContext, requested: unknown): Promise<ToolContext> {
  const on = requested === true || (await new SchoolSettingsService(ctx.deps).read()).mcp_student_pseudonyms === true;
  return on ? { ...ctx, records: new PseudonymousRecords(ctx.deps, ctx.records, pseudonymsFor(ctx.deps.config)) } : ctx;
}
