import { z } from 'zod';
import type { AreaDef } from '../platform/areas.ts';
import { PlatformError } from '../platform/errors.ts';
import type { ListParams, RecordPresentation } from '../platform/records.ts';
import { SchoolSettingsService } from '../platform/school-settings.ts';
import { learnerRule, type LearnerRule } from './learner-data.ts';
import { isPseudonymValue, pseudonymsFor, type Pseudonyms } from './pseudonyms.ts';
import type { ToolContext } from './tool.ts';

/**
 * Records as an MCP tool shows them while learners are pseudonymized: every
 * record the service hands out, written ones included, shows learners by
 * their pseudonyms (learner-data.ts). RecordService applies this to each of
 * its reads and writes itself (RecordPresentation), so a dry run, a filter
 * or any later option reaches the real write unchanged.
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
export function pseudonymousPresentation(pseudonyms: Pseudonyms): RecordPresentation {
  return {
    show(area, record) {
      const rule = learnerRule(area.name);
      return rule ? rule.apply(record, pseudonyms) : record;
    },
    searchable(area, params) {
      const rule = learnerRule(area.name);
      return rule ? withoutLearnerSearch(area, rule, params) : area;
    },
    checkCreate: refusePseudonyms,
    async checkUpdate(area, input, shownBefore) {
      const rule = learnerRule(area.name);
      if (!rule?.fields.some((f) => f in input)) return input;
      const current = await shownBefore();
      const patch = Object.fromEntries(Object.entries(input).filter(([k, v]) => !(rule.fields.includes(k) && JSON.stringify(v) === JSON.stringify(current[k]))));
      refusePseudonyms(area, patch);
      return patch;
    },
  };
}

/** The area as the search sees it: learner fields are not searched; a filter on one is refused. */
function withoutLearnerSearch(area: AreaDef, rule: LearnerRule, params: ListParams): AreaDef {
  for (const [name, f] of Object.entries(area.fields)) {
    if (f.filter && rule.fields.includes(name) && params.filters?.[name] !== undefined) {
      throw new PlatformError('invalid_request', `${area.label} records cannot be filtered by ${name} while learners are shown by pseudonyms`);
    }
  }
  const fields = Object.fromEntries(Object.entries(area.fields).map(([n, f]) => [n, { ...f, search: f.search === true && !rule.fields.includes(n) }]));
  if (params.q && !Object.values(fields).some((f) => f.search)) {
    throw new PlatformError('invalid_request', `${area.label} records cannot be searched by name or email while learners are shown by pseudonyms`);
  }
  return { ...area, fields };
}

/** A pseudonym is what an answer showed, never a learner's real data: it is not stored. */
function refusePseudonyms(area: AreaDef, input: Record<string, unknown>): void {
  const rule = learnerRule(area.name);
  if (!rule) return;
  for (const name of rule.fields) {
    if (isPseudonymValue(input[name])) {
      throw new PlatformError(
        'invalid_request',
        `${name}: "${String(input[name])}" is a pseudonym shown in place of a learner's ${name}, not a value to store; leave the field out to keep the real one`,
      );
    }
  }
}

/** The input every tool accepts, added where the tools are registered (server.ts). */
export const pseudonymizeOption = () => z.boolean().optional().describe('true: students shown by stable pseudonyms (Student 3F9A0C17B2), ids real; the school may make it the rule');

/**
 * The tool context of one call: with pseudonymized records when the call asks
 * for it or the school's setting `mcp_student_pseudonyms` is on. The setting
 * is a floor: a call can turn pseudonyms on, never off.
 */
export async function withPseudonyms(ctx: ToolContext, requested: unknown): Promise<ToolContext> {
  const on = requested === true || (await new SchoolSettingsService(ctx.deps).read()).mcp_student_pseudonyms === true;
  return on ? { ...ctx, pseudonymized: true, records: ctx.records.presentedAs(pseudonymousPresentation(pseudonymsFor(ctx.deps.config))) } : ctx;
}
