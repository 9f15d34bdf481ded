import { defineTool } from '../tool.ts';

export const getSiteInfo = defineTool({
  name: 'get_site_info',
  toolset: 'catalog',
  title: 'About this school',
  description: "The school's name, description, language and currency, what it offers, and where its API and documents are.",
  scopes: [],
  readOnly: true,
  input: {},
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
