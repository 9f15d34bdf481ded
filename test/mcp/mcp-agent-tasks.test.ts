/**
 * Agents doing a school's work through the real MCP SDK clients, v1 (the
 * 2025 revisions) and v2 pinned to 2026-07-28, over real HTTP on each store:
 * an owner builds a course, publishes it and enrolls a student; the student
 * asks what is left; a lecturer reports the course's progress. Each task
 * states the tool calls it takes and the bytes it reads, as an agent's
 * context pays for them.
 */
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLE_SCOPES, type Role } from '../../src/access/roles.ts';
import { summaryOf } from '../helpers/mcp.ts';
import { marker, startRecordsServer, tokenSource, type RecordsServer } from '../helpers/records.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

type CallResult = { content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

/** What an agent's session cost: its tool calls in order, and the bytes of every answer it read. */
interface Session {
  call(name: string, args?: Record<string, unknown>): Promise<CallResult>;
  listBytes(): Promise<number>;
  calls: string[];
  bytesRead: number;
  /** The protocol revision each request declared, as the server saw it. */
  revisions: Set<string>;
  close(): Promise<void>;
}

const CLIENTS = ['v1', 'v2 on 2026-07-28'] as const;

describe.each(STORE_KINDS)('agents at work (%s)', (kind) => {
  let ctx: RecordsServer;

  beforeAll(async () => {
    ctx = await startRecordsServer(kind);
  });
  afterAll(async () => {
    await ctx?.server.stop();
  });

  /** A person of the role, signed in with every scope the role may hold. */
  async function person(role: Role) {
    const user = role === 'owner' ? ctx.server.user : await ctx.server.addUser(role, `${marker(role)}@agents.test`);
    return { user, token: await tokenSource(ctx.server, user, 1)(ROLE_SCOPES[role].join(' ')) };
  }

  async function connect(client: (typeof CLIENTS)[number], token: string): Promise<Session> {
    const session: Session = { calls: [], bytesRead: 0, revisions: new Set(), call: undefined as never, listBytes: undefined as never, close: undefined as never };
    const counting = async (url: string | URL, init?: RequestInit) => {
      const res = await fetch(url, init);
      const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string; params?: { name?: string; _meta?: Record<string, unknown> } }) : undefined;
      const revision = new Headers(init?.headers).get('mcp-protocol-version') ?? String(body?.params?._meta?.['io.modelcontextprotocol/protocolVersion'] ?? '');
      if (revision) session.revisions.add(revision);
      if (body?.method === 'tools/call') {
        session.calls.push(String(body.params?.name));
        session.bytesRead += Buffer.byteLength(await res.clone().text());
      }
      return res;
    };
    const url = new URL(`${ctx.server.issuer}/mcp`);
    const requestInit = { headers: { authorization: `Bearer ${token}` } };
    if (client === 'v1') {
      const c = new ClientV1({ name: 'agent-v1', version: '1.0.0' });
      await c.connect(new TransportV1(url, { requestInit, fetch: counting }));
      session.call = async (name, args = {}) => (await c.callTool({ name, arguments: args })) as CallResult;
      session.listBytes = async () => Buffer.byteLength(JSON.stringify((await c.listTools()).tools));
      session.close = () => c.close();
    } else {
      const c = new ClientV2({ name: 'agent-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      await c.connect(new TransportV2(url, { requestInit, fetch: counting }));
      session.call = async (name, args = {}) => (await c.callTool({ name, arguments: args })) as CallResult;
      session.listBytes = async () => Buffer.byteLength(JSON.stringify((await c.listTools()).tools));
      session.close = () => c.close();
    }
    return session;
  }

  const ok = async (session: Session, name: string, args: Record<string, unknown> = {}) => {
    const result = await session.call(name, args);
    expect(result.isError ?? false, `${name}: ${JSON.stringify(result.content)}`).toBe(false);
    return result;
  };

  for (const client of CLIENTS) {
    it(`${client}: an owner builds a 2-section, 3-lesson course, publishes it and enrolls a student in 2 calls; the student learns what is left in 1; a lecturer reports progress in 1`, async () => {
      const owner = await connect(client, (await person('owner')).token);
      const student = await person('student');
      const title = `Agents ${marker()}`;

      // The owner's agent: one call builds and publishes, one enrolls.
      const built = await ok(owner, 'build_course', {
        course: { title, level: 'beginner' },
        sections: [
          { title: 'Start here', lessons: [{ title: 'Welcome' }, { title: 'Tools' }] },
          { title: 'Going on', lessons: [{ title: 'First project', duration_minutes: 30 }] },
        ],
        publish: true,
      });
      const courseId = String((built.structuredContent!.course as { id: string }).id);
      expect(summaryOf(built)).toBe(`Built "${title}" (id ${courseId}), published: 2 sections, 3 lessons.`);
      await ok(owner, 'enroll_student_by_email', { email: student.user.email, course_id: courseId, name: 'Sam Learner' });
      expect(owner.calls).toEqual(['build_course', 'enroll_student_by_email']);
      expect(owner.bytesRead).toBeLessThanOrEqual(6 * 1024);
      // The order is the one given, as anyone reads the published curriculum.
      const outline = (await ctx.anonymous('GET', `/courses/${courseId}/curriculum`)).json as { sections: { title: string; lessons: { title: string }[] }[] };
      expect(outline.sections.map((s) => [s.title, s.lessons.map((l) => l.title)])).toEqual([
        ['Start here', ['Welcome', 'Tools']],
        ['Going on', ['First project']],
      ]);

      // The student's agent marks the first lesson done (their own action), then asks what is left: one call.
      const learner = await connect(client, student.token);
      const lessons = (built.structuredContent!.sections as { lessons: { id: string }[] }[]).flatMap((s) => s.lessons.map((l) => l.id));
      await ok(learner, 'set_my_lesson_completion', { lesson_id: lessons[0] });
      learner.calls.length = 0;
      learner.bytesRead = 0;
      const left = await ok(learner, 'get_my_progress');
      expect(learner.calls).toEqual(['get_my_progress']);
      expect(summaryOf(left)).toBe(`${title}: 33%, 1 of 3 lessons done; left:\n  - Tools (${lessons[1]})\n  - First project (${lessons[2]})`);
      expect(learner.bytesRead).toBeLessThanOrEqual(2 * 1024);

      // The lecturer's agent: the course's progress, with the student's name, in one call.
      const lecturer = await connect(client, (await person('lecturer')).token);
      const report = await ok(lecturer, 'get_course_progress', { course_id: courseId });
      expect(lecturer.calls).toEqual(['get_course_progress']);
      expect(summaryOf(report)).toBe(`${title}: 1 enrollment\n- Sam Learner: 33% (1/3), next: Tools`);
      expect(lecturer.bytesRead).toBeLessThanOrEqual(2 * 1024);

      // What each agent's tool list costs it, once per session.
      expect(await learner.listBytes()).toBeLessThanOrEqual(15 * 1024);
      expect(await lecturer.listBytes()).toBeLessThanOrEqual(40 * 1024);
      expect(await owner.listBytes()).toBeLessThanOrEqual(40 * 1024);
      // Each client spoke the revision it was built for.
      for (const s of [owner, learner, lecturer]) expect([...s.revisions], client).toEqual([client === 'v1' ? '2025-11-25' : '2026-07-28']);
      for (const s of [owner, learner, lecturer]) await s.close();
    });
  }
});
