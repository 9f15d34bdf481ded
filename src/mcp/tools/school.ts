import { PlatformError } from '../../platform/errors.ts';
import { AREAS } from '../../platform/areas.ts';
import { recordToRow, rowToRecord } from '../../platform/fields.ts';
import { bulletList, formatMoney } from '../format.ts';
import { defineTool, type Zod } from '../tool.ts';

const page = (z: Zod) => ({
  limit: z.number().int().min(1).max(50).default(10).describe('How many results (1-50)'),
  cursor: z.string().max(500).optional().describe('next_cursor from a previous call'),
});

export const getSiteInfo = defineTool({
  name: 'get_site_info',
  title: 'About this school',
  description: 'The school\'s name, description, language and currency, what it offers, and where its API and documents are.',
  scopes: [],
  readOnly: true,
  input: () => ({}),
  async run(ctx) {
    const school = (await ctx.deps.store.settings.get('school')) ?? {};
    const issuer = ctx.deps.config.issuer;
    const count = (table: string, where: [string, '=', unknown][]) => ctx.deps.store.records.count(table, where);
    const info = {
      name: typeof school.name === 'string' ? school.name : 'Lyceum School',
      description: typeof school.description === 'string' ? school.description : '',
      locale: typeof school.locale === 'string' ? school.locale : 'en',
      currency: typeof school.currency === 'string' ? school.currency : 'USD',
      published_courses: await count('courses', [['status', '=', 'published']]),
      lecturers: await count('lecturers', []),
      links: {
        api: `${issuer}/openapi.json`,
        authentication: `${issuer}/auth.md`,
        pricing: `${issuer}/pricing.md`,
        llms_txt: `${issuer}/llms.txt`,
      },
    };
    return {
      structured: info,
      text: `${info.name}${info.description ? ` — ${info.description}` : ''}\n${info.published_courses} published courses, ${info.lecturers} lecturers. Prices in ${info.currency}.\nAPI: ${info.links.api} · Sign-in for agents: ${info.links.authentication}`,
    };
  },
});

export const listStudents = defineTool({
  name: 'list_students',
  title: 'List students',
  description: 'The school\'s students with name, email and status. Needs students:read.',
  scopes: ['students:read'],
  readOnly: true,
  input: (z) => ({ query: z.string().max(200).optional().describe('Name or email to look for'), status: z.enum(['active', 'suspended']).optional(), ...page(z) }),
  async run(ctx, args) {
    const result = await ctx.records.list(AREAS.students, 'full', {
      limit: args.limit,
      ...(args.cursor ? { cursor: args.cursor } : {}),
      ...(args.query ? { q: args.query } : {}),
      filters: args.status ? { status: args.status } : {},
    });
    return {
      structured: { students: result.data, ...(result.next_cursor ? { next_cursor: result.next_cursor } : {}) },
      text: bulletList(result.data, (s) => `${s.name} <${s.email}> (${s.status}) id ${s.id}`, result.next_cursor),
    };
  },
});

export const listOrders = defineTool({
  name: 'list_orders',
  title: 'List orders',
  description: 'Orders with items, totals and status, oldest first. Needs orders:read.',
  scopes: ['orders:read'],
  readOnly: true,
  input: (z) => ({ status: z.enum(['pending', 'paid', 'refunded']).optional(), student_id: z.string().max(100).optional(), ...page(z) }),
  async run(ctx, args) {
    const filters: Record<string, string> = {};
    if (args.status) filters.status = args.status;
    if (args.student_id) filters.student_id = args.student_id;
    const result = await ctx.records.list(AREAS.orders, 'full', { limit: args.limit, filters, ...(args.cursor ? { cursor: args.cursor } : {}) });
    return {
      structured: { orders: result.data, ...(result.next_cursor ? { next_cursor: result.next_cursor } : {}) },
      text: bulletList(result.data, (o) => `${o.id}: ${formatMoney(o.total_cents, String(o.currency ?? 'USD'))} ${o.status}${o.paid_at ? ` on ${String(o.paid_at).slice(0, 10)}` : ''}`, result.next_cursor),
    };
  },
});

const courseChanges = (z: Zod) => ({
  title: z.string().min(1).max(200).optional(),
  summary: z.string().max(500).optional(),
  description: z.string().max(100_000).optional(),
  level: z.enum(['beginner', 'intermediate', 'advanced']).optional(),
  language: z.string().max(20).optional(),
  price_cents: z.number().int().min(0).max(100_000_000).optional(),
  status: z.enum(['draft', 'published', 'archived']).optional(),
});

export const updateCourse = defineTool({
  name: 'update_course',
  title: 'Update a course',
  description: 'Changes a course\'s title, summary, description, level, language, price or status. With dry_run true nothing is written and the result shows what would change. Needs courses:write.',
  scopes: ['courses:write'],
  readOnly: false,
  input: (z) => ({ id: z.string().min(1).max(100).describe('The course id'), ...courseChanges(z), dry_run: z.boolean().default(false).describe('Preview the change without saving it') }),
  async run(ctx, args) {
    const { id, dry_run: dryRun, ...changes } = args;
    const patch = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
    if (Object.keys(patch).length === 0) throw new PlatformError('invalid_request', 'Give at least one field to change');
    const before = await ctx.records.get(AREAS.courses, 'full', id);
    const after = dryRun
      ? rowToRecord(AREAS.courses.fields, { ...recordToRow(AREAS.courses.fields, before), id, ...recordToRow(AREAS.courses.fields, patch), created_at: Date.parse(String(before.created_at)), updated_at: Date.parse(String(before.updated_at)) })
      : await ctx.records.update(AREAS.courses, id, patch);
    const changed = Object.keys(patch).filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
    return {
      structured: { dry_run: dryRun, changed, course: after },
      text: `${dryRun ? 'Would change' : 'Changed'} ${changed.length ? changed.join(', ') : 'nothing'} on "${after.title}" (id ${id}).`,
    };
  },
});
