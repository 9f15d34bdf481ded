/**
 * Learner privacy at /mcp: with the per-call option `pseudonymize` or the
 * school setting `mcp_student_pseudonyms`, MCP answers show students by
 * stable pseudonyms instead of names and emails, over real HTTP with the MCP
 * SDK's client, once per store. The REST API is unaffected, and what a tool
 * writes never stores a pseudonym.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AREA_LIST, AREAS } from '../../src/platform/areas.ts';
import { PlatformError } from '../../src/platform/errors.ts';
import { RecordService } from '../../src/platform/records.ts';
import { LEARNER_RULES } from '../../src/mcp/learner-data.ts';
import { pseudonymousPresentation } from '../../src/mcp/pseudonymous-records.ts';
import { pseudonymsFor, WITHHELD } from '../../src/mcp/pseudonyms.ts';
import { obtainTokens, startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

type CallResult = { content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };
type Student = { id: string; name: string; email: string; notes: string };

const PSEUDONYM_NAME = /^Student [0-9A-F]{10}$/;
const PSEUDONYM_EMAIL = /^[0-9a-f]{10}@students\.invalid$/;

/** An MCP client with a bearer token that keeps the raw body of every response it reads. */
async function connect(issuer: string, token: string): Promise<{ client: Client; bodies: string[] }> {
  const bodies: string[] = [];
  const transport = new StreamableHTTPClientTransport(new URL(`${issuer}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
    fetch: async (url: string | URL, init?: RequestInit) => {
      const res = await fetch(url, init);
      bodies.push(await res.clone().text());
      return res;
    },
  });
  const client = new Client({ name: 'lyceum-pseudonyms-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, bodies };
}

describe.each(STORE_KINDS)('MCP learner pseudonyms (%s)', (kind) => {
  let server: FlowServer;
  let second: TestServer | undefined;
  let token: string;
  let mcp: Awaited<ReturnType<typeof connect>>;
  let records: RecordService;
  const students: Student[] = [];

  beforeAll(async () => {
    server = await startFlowServer(kind);
    records = new RecordService(server.deps);
    const tag = randomBytes(3).toString('hex');
    for (const [name, local] of [
      ['Adaeze Quinnell', 'adaeze.quinnell'],
      ['Bertrand Oyelaran', 'bertrand.oyelaran'],
      ['Cleopatra Marchetti', 'cleo.marchetti'],
    ] as const) {
      const email = `${local}-${tag}@learners.test`;
      const notes = `private note on ${local}`;
      const { id } = await records.create(AREAS.students, { name, email, notes });
      students.push({ id: String(id), name, email, notes });
    }
    token = (await obtainTokens(server, { scope: 'students:read students:write orders:read school:read school:write' })).tokens.access_token;
    mcp = await connect(server.issuer, token);
  });
  afterAll(async () => {
    await second?.close();
    await server?.stop();
  });

  const listStudents = async (args: Record<string, unknown> = {}, client = mcp.client) => {
    const result = (await client.callTool({ name: 'list_records', arguments: { area: 'students', limit: 50, fields: ['name', 'email', 'status', 'notes'], ...args } })) as CallResult;
    expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
    return { rows: result.structuredContent!.records as Record<string, unknown>[], text: result.content.map((c) => c.text ?? '').join('\n') };
  };
  const byId = (rows: Record<string, unknown>[]) => new Map(rows.map((r) => [String(r.id), r]));

  /** The real data of every student, as it may appear anywhere in a serialized answer (JSON escapes none of it). */
  const personalData = () => students.flatMap((s) => [s.name, s.email, s.email.split('@')[0]!, s.notes, ...s.name.split(' ')]);

  function expectNoPersonalData(body: string) {
    for (const value of personalData()) expect(body, value).not.toContain(value);
  }

  async function setSchool(on: boolean) {
    const res = await fetch(`${server.issuer}/api/v1/school`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ mcp_student_pseudonyms: on }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(((await res.json()) as Record<string, unknown>).mcp_student_pseudonyms).toBe(on);
  }

  it('every tool that can show learners takes the optional boolean input pseudonymize, and no other', async () => {
    const { tools } = await mcp.client.listTools();
    const taking = tools.filter((t) => 'pseudonymize' in (t.inputSchema.properties ?? {})).map((t) => t.name);
    expect(taking).toEqual(['list_records', 'get_record', 'create_record', 'update_record', 'enroll_student_by_email', 'get_course_progress']);
    for (const tool of tools.filter((t) => taking.includes(t.name))) {
      expect(tool.inputSchema.properties?.pseudonymize, tool.name).toMatchObject({ type: 'boolean' });
      expect(tool.inputSchema.required ?? [], tool.name).not.toContain('pseudonymize');
    }
    // A tool without the option refuses it as an unknown argument, naming what it takes.
    const refused = (await mcp.client.callTool({ name: 'get_site_info', arguments: { pseudonymize: true } })) as CallResult;
    expect(refused.isError).toBe(true);
    expect(refused.content[0]!.text).toMatch(/pseudonymize/);
  });

  it('with the school setting off and no option, list_students shows real names and emails', async () => {
    const { rows, text } = await listStudents();
    for (const s of students) {
      expect(byId(rows).get(s.id)).toMatchObject({ name: s.name, email: s.email, notes: s.notes });
      expect(text).toContain(`${s.name} <${s.email}> (id ${s.id}, active)`);
    }
  });

  it('pseudonymize:true shows pseudonyms in structured content and text, no name, email or note anywhere in the response body, ids unchanged', async () => {
    const before = mcp.bodies.length;
    const { rows, text } = await listStudents({ pseudonymize: true });
    const raw = mcp.bodies.slice(before).join('\n');
    expect(raw).toContain('"structuredContent"');
    expectNoPersonalData(raw);
    const shown = byId(rows);
    expect([...shown.keys()].sort()).toEqual(students.map((s) => s.id).sort());
    for (const s of students) {
      const row = shown.get(s.id)!;
      expect(row.name).toMatch(PSEUDONYM_NAME);
      expect(row.email).toMatch(PSEUDONYM_EMAIL);
      expect(row.email).toBe(`${String(row.name).slice('Student '.length).toLowerCase()}@students.invalid`);
      expect(row.notes).toBe(WITHHELD);
      expect(row).toMatchObject({ id: s.id, status: 'active' });
      expect(text).toContain(`${String(row.name)} <${String(row.email)}> (id ${s.id}, active)`);
    }
  });

  it('enroll_student_by_email shows an existing student by pseudonym, in its preview and in the enrollment itself', async () => {
    const course = await records.create(AREAS.courses, { title: 'Pseudonymous Enrollment' });
    const s = students[1]!;
    const before = mcp.bodies.length;
    for (const dryRun of [true, false]) {
      const result = (await mcp.client.callTool({ name: 'enroll_student_by_email', arguments: { email: s.email, course_id: course.id, dry_run: dryRun, pseudonymize: true } })) as CallResult;
      expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
      expect(result.structuredContent!.student).toMatchObject({ id: s.id, name: expect.stringMatching(PSEUDONYM_NAME), email: expect.stringMatching(PSEUDONYM_EMAIL) });
    }
    expectNoPersonalData(mcp.bodies.slice(before).join('\n'));
  });

  it('a student keeps the same pseudonym across calls; different students get different ones', async () => {
    const first = byId((await listStudents({ pseudonymize: true })).rows);
    const again = byId((await listStudents({ pseudonymize: true, limit: 1 })).rows);
    const [one] = again.keys();
    expect(again.get(one!)!.name).toBe(first.get(one!)!.name);
    const names = students.map((s) => first.get(s.id)!.name);
    const emails = students.map((s) => first.get(s.id)!.email);
    expect(new Set(names).size).toBe(students.length);
    expect(new Set(emails).size).toBe(students.length);
  });

  it('another server on the same store and secret shows the same pseudonyms', async () => {
    second = await startTestServer(kind, { DATABASE_URL: server.databaseUrl });
    const other = await connect(second.issuer, token);
    const here = byId((await listStudents({ pseudonymize: true })).rows);
    const there = byId((await listStudents({ pseudonymize: true }, other.client)).rows);
    for (const s of students) expect(there.get(s.id)).toEqual(here.get(s.id));
    await other.client.close();
  });

  it('a search by name while pseudonymized is refused, so a real name cannot be guessed letter by letter', async () => {
    const before = mcp.bodies.length;
    const result = (await mcp.client.callTool({ name: 'list_records', arguments: { area: 'students', q: 'Ada', pseudonymize: true } })) as CallResult;
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: 'student records cannot be searched by name or email while learners are shown by pseudonyms' }]);
    expectNoPersonalData(mcp.bodies.slice(before).join('\n'));
    // Without pseudonyms the same search finds her.
    expect((await listStudents({ q: 'Adaeze' })).rows.map((r) => r.name)).toEqual(['Adaeze Quinnell']);
  });

  describe('the school setting mcp_student_pseudonyms', () => {
    afterAll(() => setSchool(false));

    it('is false by default and readable with school:read', async () => {
      const res = await fetch(`${server.issuer}/api/v1/school`, { headers: { authorization: `Bearer ${token}` } });
      expect(((await res.json()) as Record<string, unknown>).mcp_student_pseudonyms).toBe(false);
    });

    it('turned on through PATCH /api/v1/school, pseudonymizes every call, and pseudonymize:false cannot lower it', async () => {
      await setSchool(true);
      for (const args of [{}, { pseudonymize: false }, { pseudonymize: true }]) {
        const before = mcp.bodies.length;
        const { rows } = await listStudents(args);
        expectNoPersonalData(mcp.bodies.slice(before).join('\n'));
        for (const s of students) expect(byId(rows).get(s.id)!.name, JSON.stringify(args)).toMatch(PSEUDONYM_NAME);
      }
    });

    it('an agent cannot turn it off, dry run or not; staff can, through the API', async () => {
      await setSchool(true);
      for (const dryRun of [true, false]) {
        const result = (await mcp.client.callTool({ name: 'update_school_settings', arguments: { mcp_student_pseudonyms: false, dry_run: dryRun } })) as CallResult;
        expect(result.isError, JSON.stringify(result.content)).toBe(true);
        expect(result.content[0]!.text).toBe("mcp_student_pseudonyms: an agent cannot turn learner pseudonyms off; the school's staff do that through the API (PATCH /api/v1/school)");
      }
      const school = await fetch(`${server.issuer}/api/v1/school`, { headers: { authorization: `Bearer ${token}` } });
      expect(((await school.json()) as Record<string, unknown>).mcp_student_pseudonyms).toBe(true);
      // Raising it, or leaving it as it is, stays open to agents.
      const same = (await mcp.client.callTool({ name: 'update_school_settings', arguments: { mcp_student_pseudonyms: true, dry_run: true } })) as CallResult;
      expect(same.isError ?? false).toBe(false);
      await setSchool(false);
      const raised = (await mcp.client.callTool({ name: 'update_school_settings', arguments: { mcp_student_pseudonyms: true } })) as CallResult;
      expect(raised.isError ?? false, JSON.stringify(raised.content)).toBe(false);
      await setSchool(false);
    });

    it('leaves the REST API unaffected', async () => {
      await setSchool(true);
      const res = await fetch(`${server.issuer}/api/v1/students?limit=50`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
      const { data } = (await res.json()) as { data: Record<string, unknown>[] };
      for (const s of students) expect(byId(data).get(s.id)).toMatchObject({ name: s.name, email: s.email, notes: s.notes });
    });

    it('turned off again, answers show real names', async () => {
      await setSchool(false);
      const { rows } = await listStudents();
      for (const s of students) expect(byId(rows).get(s.id)!.name).toBe(s.name);
    });
  });

  it('auth.md tells agents about the option and the school setting', async () => {
    const md = await (await fetch(`${server.issuer}/auth.md`)).text();
    expect(md).toContain('Every tool that can show learners takes `pseudonymize` (boolean)');
    expect(md).toContain('The school setting `mcp_student_pseudonyms` (PATCH `/api/v1/school`)');
  });

  describe('the pseudonymizing view of the record service, on the real store', () => {
    const view = () => records.presentedAs(pseudonymousPresentation(pseudonymsFor(server.deps.config)));

    it('an update that sends back a record as it was shown keeps the real name, email and notes', async () => {
      const s = students[0]!;
      const shown = await view().get(AREAS.students, 'full', s.id);
      const { id: _id, created_at: _c, updated_at: _u, user_id: _user, ...echo } = shown;
      const answer = await view().update(AREAS.students, s.id, { ...echo, status: 'suspended' });
      expect(answer).toMatchObject({ id: s.id, name: shown.name, email: shown.email, notes: WITHHELD, status: 'suspended' });
      expect(await records.get(AREAS.students, 'full', s.id)).toMatchObject({ name: s.name, email: s.email, notes: s.notes, status: 'suspended' });
      await records.update(AREAS.students, s.id, { status: 'active' });
    });

    it("refuses to store a pseudonym that is not the record's own, on update and on create", async () => {
      const other = await view().get(AREAS.students, 'full', students[1]!.id);
      const refused = (p: Promise<unknown>) => expect(p).rejects.toSatisfy((e) => e instanceof PlatformError && e.code === 'invalid_request' && /pseudonym/.test(e.description));
      await refused(view().update(AREAS.students, students[0]!.id, { name: other.name }));
      await refused(view().update(AREAS.students, students[0]!.id, { email: other.email }));
      await refused(view().create(AREAS.students, { name: 'Someone New', email: String(other.email) }));
      await refused(view().create(AREAS.students, { name: String(other.name), email: `new-${Date.now()}@learners.test` }));
      expect(await records.get(AREAS.students, 'full', students[0]!.id)).toMatchObject({ name: students[0]!.name, email: students[0]!.email });
    });

    it('a real change of a learner field is written, and answered with the pseudonym', async () => {
      const s = students[2]!;
      const answer = await view().update(AREAS.students, s.id, { notes: 'a new note' });
      expect(answer.notes).toBe(WITHHELD);
      expect((await records.get(AREAS.students, 'full', s.id)).notes).toBe('a new note');
      await records.update(AREAS.students, s.id, { notes: s.notes });
    });

    it('refuses a filter on a learner field, and a search of students, naming why; other filters work', async () => {
      const refusal = (p: Promise<unknown>) =>
        p.then(
          () => 'listed',
          (e: unknown) => (e instanceof PlatformError ? `${e.code}: ${e.description}` : String(e)),
        );
      expect(await refusal(view().list(AREAS.students, 'full', { filters: { email: students[0]!.email } }))).toBe(
        'invalid_request: student records cannot be filtered by email while learners are shown by pseudonyms',
      );
      expect(await refusal(view().list(AREAS.students, 'full', { q: 'Adaeze' }))).toBe('invalid_request: student records cannot be searched by name or email while learners are shown by pseudonyms');
      const active = await view().list(AREAS.students, 'full', { filters: { status: 'active' }, limit: 100 });
      expect(active.data.map((r) => r.id)).toEqual(expect.arrayContaining(students.map((s) => s.id)));
    });

    it('searches the other fields of an area with learner data: a comment by its text, never by its author', async () => {
      const s = students[2]!;
      const marker = `searchable-${randomBytes(3).toString('hex')}`;
      const comment = await records.create(AREAS.comments, { target_type: 'course', target_id: 'crs_y', author_name: s.name, student_id: s.id, body: `Text ${marker}` });
      const found = await view().list(AREAS.comments, 'full', { q: marker });
      expect(found.data.map((c) => c.id)).toEqual([comment.id]);
      expect(found.data[0]!.author_name).toMatch(PSEUDONYM_NAME);
      expect((await view().list(AREAS.comments, 'full', { q: s.name })).data).toEqual([]);
    });

    it('shows an event attendee who is a student as that student, and any other attendee by a guest pseudonym', async () => {
      const event = await records.create(AREAS.events, { title: 'Open Day', starts_at: new Date(server.deps.now() + 86_400_000).toISOString(), status: 'published' });
      const s = students[0]!;
      const asStudent = await records.create(AREAS.event_attendees, { event_id: event.id, student_id: s.id, name: s.name, email: s.email });
      const guest = await records.create(AREAS.event_attendees, { event_id: event.id, name: 'Walk-in Visitor', email: 'walk.in@visitors.test' });
      const student = await view().get(AREAS.students, 'full', s.id);
      expect(await view().get(AREAS.event_attendees, 'full', String(asStudent.id))).toMatchObject({ name: student.name, email: student.email, student_id: s.id });
      const { data } = await view().list(AREAS.event_attendees, 'full', { filters: { event_id: String(event.id) } });
      const shownGuest = data.find((a) => a.id === guest.id)!;
      expect(shownGuest.name).toMatch(/^Guest [0-9A-F]{10}$/);
      expect(shownGuest.email).toMatch(/^[0-9a-f]{10}@guests\.invalid$/);
      expect(JSON.stringify(data)).not.toMatch(/Walk-in|walk\.in|Adaeze/);
    });

    it("shows a student's comment under their pseudonym and withholds the text of form answers", async () => {
      const s = students[1]!;
      const byStudent = await records.create(AREAS.comments, { target_type: 'course', target_id: 'crs_x', author_name: s.name, student_id: s.id, body: 'Great course' });
      const byGuest = await records.create(AREAS.comments, { target_type: 'course', target_id: 'crs_x', author_name: 'A Visitor', body: 'Nice' });
      const student = await view().get(AREAS.students, 'full', s.id);
      expect(await view().get(AREAS.comments, 'full', String(byStudent.id))).toMatchObject({ author_name: student.name, body: 'Great course' });
      expect(await view().get(AREAS.comments, 'full', String(byGuest.id))).toMatchObject({ author_name: 'A Visitor' });

      const form = await records.create(AREAS.forms, { title: 'Feedback' });
      const submission = await records.create(AREAS.form_submissions, { form_id: form.id, data: { name: s.name, email: s.email, rating: 5, subscribe: true, phone: null } });
      expect((await view().get(AREAS.form_submissions, 'full', String(submission.id))).data).toEqual({ name: WITHHELD, email: WITHHELD, rating: 5, subscribe: true, phone: null });
    });
  });
});

describe("where learners' personal data is declared", () => {
  it('every field that names or reaches a person is a learner field with a rule, or a staff field', () => {
    const STAFF = ['lecturers.name', 'lecturers.email', 'members.name', 'members.email', 'posts.author_name'];
    const NOT_PEOPLE = ['digital_products.name', 'membership_plans.name'];
    const personal = AREA_LIST.flatMap((a) =>
      Object.entries(a.fields)
        .filter(([n, f]) => f.type === 'email' || ['name', 'author_name', 'notes'].includes(n))
        .map(([n]) => `${a.name}.${n}`),
    );
    const learner = Object.entries(LEARNER_RULES).flatMap(([area, rule]) => rule!.fields.map((f) => `${area}.${f}`));
    expect(personal.filter((p) => !STAFF.includes(p) && !NOT_PEOPLE.includes(p)).sort()).toEqual(learner.filter((f) => personal.includes(f)).sort());
  });

  it('no area with learner data has a public view, so resources (read as an anonymous caller) never show a learner', () => {
    for (const name of Object.keys(LEARNER_RULES)) {
      const area = AREA_LIST.find((a) => a.name === name)!;
      expect('publicRead' in area, name).toBe(false);
      expect(
        Object.values(area.fields).some((f) => f.public),
        name,
      ).toBe(false);
    }
  });

  it('no MCP source reads a learner area from the store past the record service', () => {
    // The pseudonymizing view sees only what goes through ctx.records: a tool that reads
    // students (or attendees, comments, form submissions) straight from the store would bypass it.
    const dir = resolve(import.meta.dirname, '../../src/mcp');
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const learnerNames = Object.keys(LEARNER_RULES).flatMap((n) => [`'${n}'`, `AREAS.${n}`]);
    const offending = files.flatMap((f) =>
      readFileSync(join(dir, f), 'utf8')
        .split('\n')
        .filter((line) => /\bstore\.(records|users)\b/.test(line) && learnerNames.some((n) => line.includes(n)))
        .map((line) => `${f}: ${line.trim()}`),
    );
    expect(offending).toEqual([]);
  });

  it('no source wraps the record service: a view is a presentation the service applies itself', () => {
    // A subclass or wrapper that overrides a write can drop its options (a dry run that writes).
    const dir = resolve(import.meta.dirname, '../../src');
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const offending = files.filter((f) => /extends\s+RecordService\b/.test(readFileSync(join(dir, f), 'utf8')));
    expect(offending).toEqual([]);
  });
});
