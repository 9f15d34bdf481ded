import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Deps } from '../../deps.ts';
import { paramOf } from '../../http/requests/params.ts';
import { formatMoney } from '../../mcp/format.ts';
import { AREAS } from '../../platform/areas.ts';
import { CurriculumService } from '../../platform/curriculum.ts';
import { PlatformError } from '../../platform/errors.ts';
import { RecordService } from '../../platform/records.ts';
import { SchoolSettingsService } from '../../platform/school-settings.ts';
import { readSession } from '../../web/interaction/session.ts';
import { errorPage } from '../../web/pages/error.ts';
import { agentSnippets } from './agent-snippets.ts';
import { coursePage, homePage, type CourseCard } from './home-page.ts';

const HTML = 'text/html; charset=utf-8';
/** Courses on one page of the home page; "More courses" continues. */
const COURSES_PER_PAGE = 12;

/**
 * `/` and `/courses/{slug}`: the school as anyone sees it. Everything comes
 * through the public view of the API (RecordService with the public view,
 * the school's public fields), so a page never shows what an anonymous
 * API request would not.
 */
export function registerHome(app: FastifyInstance, deps: Deps): void {
  const records = new RecordService(deps);
  const curriculum = new CurriculumService(deps, records);
  const school = new SchoolSettingsService(deps);
  const html = { config: { html: true } };

  async function card(course: Record<string, unknown>, currency: string): Promise<CourseCard> {
    const outline = await curriculum.outline(String(course.id), 'public');
    return { course, price: formatMoney(course.price_cents, currency), sections: outline.sections };
  }

  const send = (reply: FastifyReply, status: number, page: string) => reply.code(status).type(HTML).header('cache-control', 'no-store').send(page);

  app.get('/', html, async (request, reply) => {
    const signedIn = await readSession(request, deps);
    const about = await school.view(false);
    const cursor = paramOf(request.query, 'cursor');
    let page;
    try {
      page = await records.list(AREAS.courses, 'public', { limit: COURSES_PER_PAGE, ...(typeof cursor === 'string' ? { cursor } : {}) });
    } catch (err) {
      // A cursor the page did not make: the first page instead of an error.
      if (!(err instanceof PlatformError)) throw err;
      page = await records.list(AREAS.courses, 'public', { limit: COURSES_PER_PAGE });
    }
    const mcpUrl = `${deps.config.issuer}/mcp`;
    return send(
      reply,
      200,
      homePage({
        school: { name: about.name, description: about.description },
        ...(signedIn ? { signedInAs: signedIn.user.email } : {}),
        courses: await Promise.all(page.data.map((c) => card(c, about.currency))),
        ...(page.next_cursor ? { moreCoursesHref: `/?cursor=${encodeURIComponent(page.next_cursor)}#courses` } : {}),
        mcpUrl,
        snippets: agentSnippets(mcpUrl),
        documents: [
          { href: '/auth.md', label: 'Authentication walkthrough (auth.md)' },
          { href: '/llms.txt', label: 'For language models (llms.txt)' },
          { href: '/openapi.json', label: 'OpenAPI description' },
          { href: '/.well-known/oauth-authorization-server', label: 'Authorization server metadata' },
          { href: '/.well-known/oauth-protected-resource/mcp', label: 'MCP protected-resource metadata' },
        ],
      }),
    );
  });

  app.get('/courses/:slug', html, async (request, reply) => {
    const slug = paramOf(request.params, 'slug');
    const found = typeof slug === 'string' && slug.length <= 120 ? (await records.list(AREAS.courses, 'public', { limit: 1, filters: { slug } })).data[0] : undefined;
    if (!found) return send(reply, 404, errorPage('No such course', 'not_found', 'This course does not exist or is not published.', 'The school’s published courses are listed on its home page.'));
    const about = await school.view(false);
    const lecturerIds = Array.isArray(found.lecturer_ids) ? found.lecturer_ids.filter((x): x is string => typeof x === 'string') : [];
    const lecturers: string[] = [];
    for (const id of lecturerIds) {
      const lecturer = await records.get(AREAS.lecturers, 'public', id).catch(() => undefined);
      if (typeof lecturer?.name === 'string') lecturers.push(lecturer.name);
    }
    return send(reply, 200, coursePage({ ...(await card(found, about.currency)), lecturers }));
  });
}
