/**
 * Reads whose cost could grow with a school's history: a page deep in the
 * students, a course's enrollments, a search for one student, the analytics
 * report, and a light request while the report is being made. Run on the demo
 * school and on one grown with `--school=N` (lyceum seed --scale N), they
 * show whether a large school is as quick as the demo.
 */
import type { LoadRequest } from './load.ts';
import type { Prepared, Scenario, ServerContext } from './scenarios.ts';

const DAY = 86_400_000;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * A list cursor at a point in time: the API's cursor is base64url JSON of the
 * row's sort value and id; the bench makes one to start a page 2.5 years back,
 * in the middle of a generated school's five years.
 */
const cursorAt = (ms: number) => Buffer.from(JSON.stringify([ms, '0'])).toString('base64url');
const middle = () => cursorAt(Date.now() - 912 * DAY);

async function json(ctx: ServerContext, path: string): Promise<{ data: Record<string, unknown>[] }> {
  const res = await fetch(ctx.origin + path, { headers: bearer(ctx.staff.access_token) });
  if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as { data: Record<string, unknown>[] };
}

const get = (ctx: ServerContext, path: string): LoadRequest => ({ path, headers: bearer(ctx.staff.access_token) });
const analyticsOver5Years = (ctx: ServerContext) => get(ctx, `/api/v1/analytics?from=${day(Date.now() - 1800 * DAY)}&to=${day(Date.now())}&interval=week`);

export const SCHOOL_SCENARIOS: Scenario[] = [
  {
    id: 'students-deep',
    label: 'Students page 2.5 years deep GET /api/v1/students?cursor=',
    prepare: async (ctx): Promise<Prepared> => ({ requests: [get(ctx, `/api/v1/students?limit=20&cursor=${middle()}`)] }),
  },
  {
    id: 'course-enrollments',
    label: "A course's enrollments, deep GET /api/v1/enrollments?course_id=",
    prepare: async (ctx) => {
      const [first] = (await json(ctx, '/api/v1/enrollments?limit=1')).data;
      return { requests: [get(ctx, `/api/v1/enrollments?limit=20&course_id=${String(first?.course_id)}&cursor=${middle()}`)] };
    },
  },
  {
    id: 'student-search',
    label: 'Search for one student GET /api/v1/students?q=',
    prepare: async (ctx) => {
      const [student] = (await json(ctx, `/api/v1/students?limit=1&cursor=${middle()}`)).data;
      const email = String(student?.email ?? 'nobody@');
      const fragment = email.slice(0, email.indexOf('@') + 1);
      return { requests: [{ ...get(ctx, `/api/v1/students?q=${encodeURIComponent(fragment)}`), verify: (body) => body.includes(email) }] };
    },
  },
  { id: 'analytics', label: 'Analytics, 12 months GET /api/v1/analytics', prepare: async (ctx) => ({ requests: [get(ctx, '/api/v1/analytics')] }) },
  { id: 'analytics-5y', label: 'Analytics, 5 years by week GET /api/v1/analytics', prepare: async (ctx) => ({ requests: [analyticsOver5Years(ctx)] }) },
  {
    id: 'during-analytics',
    label: 'Catalog on 1 connection while 5-year analytics runs on another',
    connections: 1,
    prepare: async (ctx) => ({ requests: [{ path: '/api/v1/courses' }], background: [analyticsOver5Years(ctx)] }),
  },
];
