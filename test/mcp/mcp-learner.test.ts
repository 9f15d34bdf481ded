import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AREAS } from '../../src/platform/areas.ts';
import { parseChallenge } from '../helpers/bearer.ts';
import { startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { insertRecord, MCP_SCOPES, mcpPost, recordingFetch, seedSchool, toolCall, type Seeded } from '../helpers/mcp.ts';
import { InMemoryOAuthProvider } from '../helpers/mcp-oauth-provider.ts';
import { freePort } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { UserAgent } from '../helpers/user-agent.ts';

type CallResult = { content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

/** The learner toolset, in its listed order. */
const LEARNER_TOOLS = ['get_my_account', 'get_my_progress', 'set_my_lesson_completion', 'list_my_enrollments', 'list_my_lessons', 'list_my_orders', 'list_my_subscriptions', 'update_my_account'];

interface Learner {
  user: { email: string; password: string; id: string };
  studentId: string;
  enrollments: string[];
  orders: string[];
  subscriptions: string[];
}

interface Connected {
  provider: InMemoryOAuthProvider;
  client: Client;
  /** The authorization URL the SDK made from the PRM. */
  authorizationUrl: URL;
}

/**
 * Two students of one school, each signed in through the MCP SDK's own OAuth
 * flow: every learner tool shows each of them their own records and nothing
 * of the other's, of the seeded students' or of the school's private fields.
 */
describe.each(STORE_KINDS)('MCP learner tools (%s)', (kind) => {
  let server: FlowServer;
  let seeded: Seeded;
  let ada: Learner;
  let ben: Learner;
  let adaMcp: Connected;
  let benMcp: Connected;
  const lessons: Record<string, string> = {};
  const sections: Record<string, string> = {};
  const PRIVATE = 'private-note-of-the-school';
  const SECRET_CONTENT = 'secret-lesson-content';

  const call = async (c: Connected, name: string, args: Record<string, unknown> = {}) => {
    const result = (await c.client.callTool({ name, arguments: args })) as CallResult;
    expect(result.isError ?? false, `${name}: ${JSON.stringify(result.content)}`).toBe(false);
    expect(result.content.filter((x) => x.type === 'text')).toHaveLength(1);
    return result.structuredContent!;
  };
  const ids = (rows: unknown) => (rows as { id: string }[]).map((r) => r.id);

  async function connect(user: Learner['user']): Promise<Connected> {
    const provider = new InMemoryOAuthProvider({ port: await freePort(), withState: true });
    const traffic = recordingFetch();
    const transport = new StreamableHTTPClientTransport(new URL(`${server.issuer}/mcp`), { authProvider: provider, fetch: traffic.fetch });
    const client = new Client({ name: 'lyceum-learner-test', version: '1.0.0' });
    await client.connect(transport);
    await vi.waitFor(() => expect(traffic.log.some((e) => e.method === 'GET')).toBe(true));
    await expect(client.callTool({ name: 'get_my_account', arguments: {} })).rejects.toBeInstanceOf(UnauthorizedError);
    const authorizationUrl = provider.lastAuthorizationUrl();
    const callback = await new UserAgent(server.issuer).authorize(authorizationUrl.href, user);
    expect(callback.searchParams.get('error'), callback.href).toBeNull();
    await transport.finishAuth(callback.searchParams.get('code')!);
    return { provider, client, authorizationUrl };
  }

  beforeAll(async () => {
    server = await startFlowServer(kind);
    seeded = await seedSchool(server);
    let t = server.deps.now() - 1_800_000;
    const put = (area: (typeof AREAS)[keyof typeof AREAS], values: Record<string, unknown>) => insertRecord(server, area, values, (t += 1000));
    const [algebra, calculus, geometry] = seeded.courses.published;
    const [draft] = seeded.courses.draft;
    const [archived] = seeded.courses.archived;

    // Curriculum, written out of order: the tool shows it in position order.
    const section = async (name: string, courseId: string, position: number) => (sections[name] = await put(AREAS.sections, { course_id: courseId, title: name, position }));
    const lesson = async (name: string, sectionName: string, courseId: string, position: number) => {
      const id = await put(AREAS.lessons, { section_id: sections[sectionName], title: name, position, kind: 'video', duration_minutes: 5, content: `${SECRET_CONTENT} ${name}` });
      // course_id is derived from the section by the record service; written here as it would be.
      await server.deps.store.records.update('lessons', id, { course_id: courseId });
      lessons[name] = id;
    };
    await section('Equations', algebra!, 1);
    await section('Basics', algebra!, 0);
    await lesson('Linear equations', 'Equations', algebra!, 0);
    await lesson('Variables', 'Basics', algebra!, 1);
    await lesson('Numbers', 'Basics', algebra!, 0);
    await section('Limits', calculus!, 0);
    await lesson('Epsilon-delta', 'Limits', calculus!, 0);
    await section('Shapes', geometry!, 0);
    await lesson('Triangles', 'Shapes', geometry!, 0);
    await section('Hidden', draft!, 0);
    await lesson('Not yet', 'Hidden', draft!, 0);
    await section('Old', archived!, 0);
    await lesson('Archived lesson', 'Old', archived!, 0);

    // Ada's student record has her account's email; Ben's is linked to his account by user_id.
    const adaUser = await server.addUser('student', `ada-${Date.now()}@learners.test`);
    const benUser = await server.addUser('student', `ben-${Date.now()}@learners.test`);
    const adaStudent = await put(AREAS.students, { name: 'Ada Learner', email: adaUser.email, status: 'active', notes: PRIVATE });
    const benStudent = await put(AREAS.students, { name: 'Ben Learner', email: `ben-elsewhere-${Date.now()}@learners.test`, status: 'active', notes: PRIVATE });
    await server.deps.store.records.update('students', benStudent, { user_id: benUser.id });
    const [monthly, yearly] = seeded.plans.published;
    // Progress is computed by the server from lesson completions (read-only through the API): written straight into the row here.
    const enrolled = async (studentId: string, courseId: string, progress: number, completedAt?: string) => {
      const id = await put(AREAS.enrollments, { student_id: studentId, course_id: courseId });
      await server.deps.store.records.update('enrollments', id, { progress_percent: progress, completed_at: completedAt === undefined ? null : Date.parse(completedAt) });
      return id;
    };

    ada = {
      user: adaUser,
      studentId: adaStudent,
      enrollments: [await enrolled(adaStudent, algebra!, 40), await enrolled(adaStudent, draft!, 0), await enrolled(adaStudent, archived!, 100, '2026-01-02T03:04:05.000Z')],
      orders: [
        await put(AREAS.orders, {
          student_id: adaStudent,
          items: [{ kind: 'course', id: algebra, name: 'Intro to Algebra', price_cents: 0 }],
          total_cents: 0,
          currency: 'USD',
          status: 'paid',
          paid_at: '2026-01-01T00:00:00.000Z',
        }),
      ],
      subscriptions: [await put(AREAS.subscriptions, { student_id: adaStudent, plan_id: monthly, status: 'active', current_period_end: '2027-01-01T00:00:00.000Z' })],
    };
    ben = {
      user: benUser,
      studentId: benStudent,
      enrollments: [await enrolled(benStudent, calculus!, 10), await enrolled(benStudent, geometry!, 0)],
      orders: [
        await put(AREAS.orders, { student_id: benStudent, items: [], total_cents: 4900, currency: 'USD', status: 'pending' }),
        await put(AREAS.orders, { student_id: benStudent, items: [], total_cents: 1500, currency: 'USD', status: 'refunded' }),
      ],
      subscriptions: [await put(AREAS.subscriptions, { student_id: benStudent, plan_id: yearly, status: 'cancelled', cancelled_at: '2026-02-01T00:00:00.000Z' })],
    };
    adaMcp = await connect(ada.user);
    benMcp = await connect(ben.user);
  });
  afterAll(async () => {
    await adaMcp?.client.close();
    await benMcp?.client.close();
    await server?.stop();
  });

  describe("OAuth with the SDK's own flow", () => {
    it("the PRM of /mcp lists account:read and account:write beside the staff tools' scopes", async () => {
      const prm = (await (await fetch(`${server.issuer}/.well-known/oauth-protected-resource/mcp`)).json()) as { scopes_supported: string[] };
      expect([...prm.scopes_supported].sort()).toEqual(MCP_SCOPES);
    });

    it("a student's client asks for every scope the PRM lists and gets a token with account:read account:write only", () => {
      for (const c of [adaMcp, benMcp]) {
        expect(c.authorizationUrl.searchParams.get('scope')?.split(' ').sort()).toEqual(MCP_SCOPES);
        expect(c.provider.tokens()?.scope).toBe('account:read account:write');
      }
    });

    it('a staff tool with that token is 403 insufficient_scope naming the scope it needs', async () => {
      const token = adaMcp.provider.tokens()!.access_token;
      for (const [name, args, scope] of [
        ['list_records', { area: 'students' }, 'students:read'],
        ['list_records', { area: 'orders' }, 'orders:read'],
        ['get_course_progress', { course_id: 'crs_x' }, 'students:read'],
        ['get_analytics', {}, 'analytics:read'],
      ] as const) {
        const res = await mcpPost(server.issuer, toolCall(name, args), { authorization: `Bearer ${token}` });
        expect(res.status, name).toBe(403);
        expect(res.json).toEqual({ error: 'insufficient_scope', error_description: expect.stringMatching(/\S/) });
        expect(parseChallenge(res.headers.get('www-authenticate')).params).toMatchObject({ error: 'insufficient_scope', scope });
      }
    });

    it('lists the catalog and the learner tools, each with its scope and readOnlyHint, nothing it cannot call', async () => {
      const { tools } = await adaMcp.client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['get_site_info', 'get_course', 'list_records', 'get_record', ...LEARNER_TOOLS]);
      const mine = tools.filter((t) => LEARNER_TOOLS.includes(t.name));
      for (const tool of mine) {
        const write = tool.name === 'update_my_account' || tool.name === 'set_my_lesson_completion';
        expect(tool.description, tool.name).toContain(`(scope: ${write ? 'account:write' : 'account:read'})`);
        expect(tool.annotations?.readOnlyHint, tool.name).toBe(!write);
      }
      // Only a tool that can show other learners takes pseudonymize: a learner's own tools do not.
      expect(Object.keys(tools.find((t) => t.name === 'update_my_account')!.inputSchema.properties ?? {})).toEqual(['name']);
      expect(tools.find((t) => t.name === 'update_my_account')!.description).toMatch(/password/);
      expect(Object.keys(tools.find((t) => t.name === 'list_my_orders')!.inputSchema.properties ?? {}).sort()).toEqual(['cursor', 'limit']);
    });
  });

  describe('each learner sees their own records only', () => {
    it('get_my_account: the profile and the counts of the own student record, no notes, no password', async () => {
      const me = await call(adaMcp, 'get_my_account');
      expect(me).toEqual({
        id: ada.user.id,
        email: ada.user.email,
        name: 'Test student',
        role: 'student',
        created_at: expect.any(String),
        updated_at: expect.any(String),
        student: { id: ada.studentId, name: 'Ada Learner', status: 'active', enrollments: 3, subscriptions: 1, orders: 1 },
      });
      expect((await call(benMcp, 'get_my_account')).student).toEqual({ id: ben.studentId, name: 'Ben Learner', status: 'active', enrollments: 2, subscriptions: 1, orders: 2 });
      const text = JSON.stringify(me);
      expect(text).not.toContain(PRIVATE);
      expect(text).not.toMatch(/password|hash/i);
    });

    it('list_my_enrollments: own enrollments with course titles and progress', async () => {
      const mine = await call(adaMcp, 'list_my_enrollments');
      expect(ids(mine.enrollments)).toEqual(ada.enrollments);
      expect(mine.enrollments).toMatchObject([
        { course_id: seeded.courses.published[0], course_title: 'Intro to Algebra', progress_percent: 40, completed_at: null },
        { course_id: seeded.courses.draft[0], course_title: `Secret ${seeded.draftWord} Course`, progress_percent: 0 },
        { course_id: seeded.courses.archived[0], course_title: `Old ${seeded.draftWord} Course`, progress_percent: 100, completed_at: '2026-01-02T03:04:05.000Z' },
      ]);
      expect(mine.student_id).toBe(ada.studentId);
      expect(mine.next_cursor).toBeUndefined();
      const his = await call(benMcp, 'list_my_enrollments');
      expect(ids(his.enrollments)).toEqual(ben.enrollments);
      expect(his.enrollments).toMatchObject([
        { course_title: 'Advanced Calculus', progress_percent: 10 },
        { course_title: 'Geometry in French', progress_percent: 0 },
      ]);
    });

    it('list_my_enrollments pages with limit and cursor', async () => {
      const first = await call(adaMcp, 'list_my_enrollments', { limit: 2 });
      expect(ids(first.enrollments)).toEqual(ada.enrollments.slice(0, 2));
      expect(first.next_cursor).toMatch(/\S/);
      const second = await call(adaMcp, 'list_my_enrollments', { limit: 2, cursor: first.next_cursor });
      expect(ids(second.enrollments)).toEqual(ada.enrollments.slice(2));
      expect(second.next_cursor).toBeUndefined();
    });

    it("list_my_orders and list_my_subscriptions: own records only, never the seeded students' ones", async () => {
      expect(ids((await call(adaMcp, 'list_my_orders')).orders)).toEqual(ada.orders);
      expect(ids((await call(benMcp, 'list_my_orders')).orders)).toEqual(ben.orders);
      const adaSubs = await call(adaMcp, 'list_my_subscriptions');
      expect(ids(adaSubs.subscriptions)).toEqual(ada.subscriptions);
      expect(adaSubs.subscriptions).toMatchObject([{ plan_name: 'Monthly', status: 'active' }]);
      const benSubs = await call(benMcp, 'list_my_subscriptions');
      expect(ids(benSubs.subscriptions)).toEqual(ben.subscriptions);
      expect(benSubs.subscriptions).toMatchObject([{ plan_name: 'Yearly', status: 'cancelled' }]);
      for (const order of seeded.orders) {
        expect(JSON.stringify(await call(adaMcp, 'list_my_orders', { limit: 50 }))).not.toContain(order);
        expect(JSON.stringify(await call(benMcp, 'list_my_orders', { limit: 50 }))).not.toContain(order);
      }
    });

    it('list_my_lessons: the lessons of enrolled courses in curriculum order, drafts left out, never the content', async () => {
      const mine = await call(adaMcp, 'list_my_lessons');
      expect(ids(mine.lessons)).toEqual([lessons.Numbers, lessons.Variables, lessons['Linear equations'], lessons['Archived lesson']]);
      expect(mine.lessons).toMatchObject([
        { title: 'Numbers', section_id: sections.Basics, section_title: 'Basics', course_title: 'Intro to Algebra' },
        { title: 'Variables', section_title: 'Basics' },
        { title: 'Linear equations', section_id: sections.Equations, section_title: 'Equations' },
        { title: 'Archived lesson', section_title: 'Old', course_id: seeded.courses.archived[0] },
      ]);
      expect(mine.next_cursor).toBeUndefined();
      expect(JSON.stringify(mine)).not.toContain(SECRET_CONTENT);
      const his = await call(benMcp, 'list_my_lessons');
      expect(ids(his.lessons)).toEqual([lessons['Epsilon-delta'], lessons.Triangles]);
      expect(JSON.stringify(his)).not.toContain(SECRET_CONTENT);
    });

    it('list_my_lessons pages across courses, and narrows to one enrolled course only', async () => {
      const seen: string[] = [];
      let cursor: unknown;
      for (let page = 0; page < 5; page++) {
        const next = await call(adaMcp, 'list_my_lessons', { limit: 1, ...(cursor ? { cursor } : {}) });
        seen.push(...ids(next.lessons));
        cursor = next.next_cursor;
        if (!cursor) break;
      }
      expect(seen).toEqual([lessons.Numbers, lessons.Variables, lessons['Linear equations'], lessons['Archived lesson']]);
      expect(ids((await call(adaMcp, 'list_my_lessons', { course_id: seeded.courses.archived[0] })).lessons)).toEqual([lessons['Archived lesson']]);
      // Ben's course is not Ada's: nothing, however she asks.
      expect((await call(adaMcp, 'list_my_lessons', { course_id: seeded.courses.published[1] })).lessons).toEqual([]);
      const forged = (await adaMcp.client.callTool({
        name: 'list_my_lessons',
        arguments: { cursor: Buffer.from(JSON.stringify([seeded.courses.published[1], 0])).toString('base64url') },
      })) as CallResult;
      expect(forged.isError).toBe(true);
    });

    it('update_my_account changes the own name only', async () => {
      const after = await call(benMcp, 'update_my_account', { name: '  Ben B.  ' });
      expect(after).toMatchObject({ id: ben.user.id, name: 'Ben B.', student: { id: ben.studentId } });
      expect((await call(benMcp, 'get_my_account')).name).toBe('Ben B.');
      expect((await call(adaMcp, 'get_my_account')).name).toBe('Test student');
      const blank = (await benMcp.client.callTool({ name: 'update_my_account', arguments: { name: '   ' } })) as CallResult;
      expect(blank.isError).toBe(true);
    });

    it('a suspended student record opens no lesson', async () => {
      await server.deps.store.records.update('students', ben.studentId, { status: 'suspended' });
      try {
        expect((await call(benMcp, 'list_my_lessons')).lessons).toEqual([]);
        expect(ids((await call(benMcp, 'list_my_enrollments')).enrollments)).toEqual(ben.enrollments);
      } finally {
        await server.deps.store.records.update('students', ben.studentId, { status: 'active' });
      }
    });

    it("an account without a student record gets empty lists, not someone else's", async () => {
      const lecturer = await server.addUser('lecturer');
      const c = await connect(lecturer);
      try {
        expect((await call(c, 'get_my_account')).student).toBeNull();
        for (const [name, key] of [
          ['list_my_enrollments', 'enrollments'],
          ['list_my_orders', 'orders'],
          ['list_my_subscriptions', 'subscriptions'],
          ['list_my_lessons', 'lessons'],
        ] as const) {
          expect((await call(c, name))[key], name).toEqual([]);
        }
      } finally {
        await c.client.close();
      }
    });
  });
});
