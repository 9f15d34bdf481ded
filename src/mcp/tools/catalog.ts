import { AREAS, type AreaDef } from '../../platform/areas.ts';
import { viewFor } from '../../platform/records.ts';
import { bulletList, formatMoney } from '../format.ts';
import { defineTool, type ToolContext, type Zod } from '../tool.ts';

const page = (z: Zod) => ({
  limit: z.number().int().min(1).max(50).default(10).describe('How many results (1-50)'),
  cursor: z.string().max(500).optional().describe('next_cursor from a previous call, to get the next page'),
});

async function currency(ctx: ToolContext): Promise<string> {
  const school = await ctx.deps.store.settings.get('school');
  return typeof school?.currency === 'string' ? school.currency : 'USD';
}

/** Lists an area with the caller's view (public for anonymous callers), exactly as GET /api/v1 does. */
async function listArea(ctx: ToolContext, area: AreaDef, args: { limit: number; cursor?: string | undefined; q?: string | undefined }, filters: Record<string, string> = {}) {
  const view = viewFor(area, ctx.caller) ?? 'public';
  return ctx.records.list(area, view, { limit: args.limit, filters, ...(args.cursor ? { cursor: args.cursor } : {}), ...(args.q ? { q: args.q } : {}) });
}

export const searchCourses = defineTool({
  name: 'search_courses',
  title: 'Search courses',
  description: 'Search the school\'s published courses by text, level or language. Returns titles, summaries, levels and prices; use get_course for the curriculum.',
  scopes: [],
  readOnly: true,
  input: (z) => ({
    query: z.string().max(200).optional().describe('Words to look for in titles and summaries'),
    level: z.enum(['beginner', 'intermediate', 'advanced']).optional(),
    language: z.string().max(20).optional().describe('BCP 47 language tag, e.g. en'),
    ...page(z),
  }),
  async run(ctx, args) {
    const filters: Record<string, string> = {};
    if (args.level) filters.level = args.level;
    if (args.language) filters.language = args.language;
    const result = await listArea(ctx, AREAS.courses, { limit: args.limit, cursor: args.cursor, q: args.query }, filters);
    const cur = await currency(ctx);
    return {
      structured: { courses: result.data, ...(result.next_cursor ? { next_cursor: result.next_cursor } : {}) },
      text: bulletList(result.data, (c) => `${c.title} (${c.level}, ${formatMoney(c.price_cents, cur)}) — id ${c.id}${c.summary ? `: ${c.summary}` : ''}`, result.next_cursor),
    };
  },
});

function simpleList(name: string, title: string, area: AreaDef, description: string, line: (item: Record<string, unknown>, cur: string) => string) {
  return defineTool({
    name,
    title,
    description,
    scopes: [],
    readOnly: true,
    input: (z) => ({ query: z.string().max(200).optional().describe('Words to look for'), ...page(z) }),
    async run(ctx, args) {
      const result = await listArea(ctx, area, { limit: args.limit, cursor: args.cursor, q: args.query });
      const cur = await currency(ctx);
      const key = area.name;
      return {
        structured: { [key]: result.data, ...(result.next_cursor ? { next_cursor: result.next_cursor } : {}) },
        text: bulletList(result.data, (i) => line(i, cur), result.next_cursor),
      };
    },
  });
}

export const listLecturers = simpleList('list_lecturers', 'List lecturers', AREAS.lecturers, 'The school\'s lecturers with their headline, biography and subjects.', (l) => `${l.name}${l.headline ? ` — ${l.headline}` : ''} (id ${l.id})`);
export const listMembershipPlans = simpleList('list_membership_plans', 'List membership plans', AREAS.membership_plans, 'Published membership plans with price, billing interval and benefits.', (p, cur) => `${p.name}: ${formatMoney(p.price_cents, cur)} per ${String(p.interval).replace('_', ' ')} (id ${p.id})`);
export const listDigitalProducts = simpleList('list_digital_products', 'List digital products', AREAS.digital_products, 'Published digital products (e-books, templates, packs) with prices.', (p, cur) => `${p.name}${p.format ? ` [${p.format}]` : ''}: ${formatMoney(p.price_cents, cur)} (id ${p.id})`);
export const listEvents = simpleList('list_events', 'List upcoming events', AREAS.events, 'Upcoming published events (workshops, webinars, open days) in date order.', (e, cur) => `${e.starts_at} — ${e.title} (${e.location ?? 'TBA'}, ${formatMoney(e.price_cents, cur)}) id ${e.id}`);
export const listPosts = simpleList('list_posts', 'List posts', AREAS.posts, 'Published posts of the school blog, oldest first, with excerpts.', (p) => `${p.title}${p.published_at ? ` (${String(p.published_at).slice(0, 10)})` : ''} — id ${p.id}${p.excerpt ? `: ${p.excerpt}` : ''}`);
