/**
 * The areas with routes of their own (school, appearance, curriculum outline,
 * storage, analytics, account) over real HTTP, once per store: success,
 * scope requirements, validation, 404s and the upload limits.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '../../src/access/scopes.ts';
import { AREAS } from '../../src/platform/areas.ts';
import { RecordService } from '../../src/platform/records.ts';
import { verifyPassword } from '../../src/users/passwords.ts';
import { parseChallenge, readJson, type JsonResponse } from '../helpers/bearer.ts';
import { expectOAuthError, obtainTokens, startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const API = '/api/v1';
const MiB = 1024 * 1024;

/** The first bytes of each format: enough for the content check, not a full image. */
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(64)]);
const PDF = Buffer.from('%PDF-1.7\n1 0 obj\n<<>>\nendobj\n');

interface Call {
  token?: string;
  json?: unknown;
  /** Sent as it is, with `contentType`. */
  raw?: string;
  contentType?: string;
}

interface Part {
  name: string;
  type: string;
  bytes: Buffer;
}

describe.each(STORE_KINDS)('platform routes of their own (%s)', (kind) => {
  let server: FlowServer;
  let records: RecordService;
  const tokens = new Map<string, Promise<string>>();

  beforeAll(async () => {
    server = await startFlowServer(kind);
    records = new RecordService(server.deps);
  });
  afterAll(async () => {
    // Uploaded bytes outside the test's own directory (PostgreSQL: ./data/files) are removed.
    for (const { id } of await server.deps.store.files.list(100)) {
      await call('DELETE', `/storage/${id}`, { token: await token('storage:write') });
    }
    await server.stop();
  });

  /** An access token granted exactly `scope`, obtained once through the real flow. */
  function token(scope: string): Promise<string> {
    let t = tokens.get(scope);
    if (!t) {
      t = obtainTokens(server, { scope }).then(({ tokens: set }) => {
        expect(set.scope.split(' ').sort()).toEqual(scope.split(' ').sort());
        return set.access_token;
      });
      tokens.set(scope, t);
    }
    return t;
  }

  async function call(method: string, path: string, c: Call = {}): Promise<JsonResponse> {
    const headers: Record<string, string> = {};
    if (c.token) headers.authorization = `Bearer ${c.token}`;
    let body: string | undefined;
    if (c.json !== undefined) {
      body = JSON.stringify(c.json);
      headers['content-type'] = 'application/json';
    } else if (c.raw !== undefined) {
      body = c.raw;
      if (c.contentType) headers['content-type'] = c.contentType;
    }
    return readJson(await fetch(`${server.issuer}${API}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) }));
  }

  async function upload(parts: Part[], t?: string, fields: Record<string, string> = {}): Promise<JsonResponse> {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    for (const p of parts) form.append('file', new Blob([new Uint8Array(p.bytes)], { type: p.type }), p.name);
    return readJson(await fetch(`${server.issuer}${API}/storage`, { method: 'POST', headers: t ? { authorization: `Bearer ${t}` } : {}, body: form }));
  }

  async function uploadOk(part: Part): Promise<Record<string, unknown>> {
    const res = await upload([part], await token('storage:write'));
    expect(res.status, res.text).toBe(201);
    return res.json;
  }

  /** 403 insufficient_scope naming the scope, in the body and in the challenge. */
  function expectInsufficientScope(res: JsonResponse, scope: Scope): void {
    expectOAuthError({ ...res, json: res.json }, 403, 'insufficient_scope');
    expect(res.json.error_description).toContain(scope);
    expect(parseChallenge(res.headers.get('www-authenticate')).params).toMatchObject({ error: 'insufficient_scope', scope });
  }

  /** A tokenless request to a non-public route: 401 invalid_request, no challenge. */
  function expectNeedsToken(res: JsonResponse): void {
    expectOAuthError(res, 401, 'invalid_request');
    expect(res.headers.get('www-authenticate')).toBeNull();
  }

  const filesDir = () => (kind === 'sqlite' ? join(dirname(server.databaseUrl), 'files') : resolve('data', 'files'));

  describe('GET/PATCH /school', () => {
    const PUBLIC_KEYS = ['currency', 'description', 'locale', 'name', 'timezone', 'website'];

    it('shows anonymous callers the public fields, with the documented defaults', async () => {
      const res = await call('GET', '/school');
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ name: 'Lyceum School', description: '', locale: 'en', currency: 'USD', timezone: 'UTC', website: null });
    });

    it('shows a token without school:read the public view, not a 403', async () => {
      const res = await call('GET', '/school', { token: await token('courses:read') });
      expect(res.status).toBe(200);
      expect(Object.keys(res.json).sort()).toEqual(PUBLIC_KEYS);
    });

    it('changes settings with school:write; school:read then sees the private ones, anonymous callers do not', async () => {
      const patch = { name: 'Acme Academy', contact_email: 'hello@acme.test', website: 'https://acme.test', locale: 'pt-br', currency: 'EUR', timezone: 'Europe/Lisbon' };
      const res = await call('PATCH', '/school', { token: await token('school:write school:read'), json: patch });
      expect(res.status, res.text).toBe(200);
      expect(res.json).toMatchObject({ ...patch, locale: 'pt-BR', updated_at: expect.any(String) });

      const full = await call('GET', '/school', { token: await token('school:read') });
      expect(full.json).toMatchObject({ name: 'Acme Academy', contact_email: 'hello@acme.test', locale: 'pt-BR' });
      const anonymous = await call('GET', '/school');
      expect(Object.keys(anonymous.json).sort()).toEqual(PUBLIC_KEYS);
      expect(anonymous.json).toMatchObject({ name: 'Acme Academy', currency: 'EUR' });

      const writeOnly = await call('PATCH', '/school', { token: await token('school:write'), json: { currency: 'USD' } });
      expect(writeOnly.status).toBe(200);
      expect(Object.keys(writeOnly.json).sort()).toEqual(PUBLIC_KEYS);
    });

    it('clears an optional field with null', async () => {
      const res = await call('PATCH', '/school', { token: await token('school:write school:read'), json: { website: null } });
      expect(res.status).toBe(200);
      expect(res.json.website).toBeNull();
    });

    it('needs school:write to change anything', async () => {
      expectNeedsToken(await call('PATCH', '/school', { json: { name: 'X' } }));
      expectInsufficientScope(await call('PATCH', '/school', { token: await token('school:read'), json: { name: 'X' } }), 'school:write');
    });

    it.each([
      ['an empty name', { name: '' }],
      ['a name over 200 characters', { name: 'n'.repeat(201) }],
      ['a description over 5000 characters', { description: 'd'.repeat(5001) }],
      ['a locale that is no language tag', { locale: 'english!' }],
      ['a lower-case currency', { currency: 'usd' }],
      ['a two-letter currency', { currency: 'US' }],
      ['an unknown time zone', { timezone: 'Mars/Olympus_Mons' }],
      ['a contact_email that is no address', { contact_email: 'not-an-email' }],
      ['an http website', { website: 'http://acme.test' }],
      ['a website that is no URL', { website: 'acme' }],
      ['an mcp_student_pseudonyms that is no boolean', { mcp_student_pseudonyms: 'true' }],
      ['an mcp_student_pseudonyms of null', { mcp_student_pseudonyms: null }],
      ['an empty body', {}],
      ['only unknown fields', { colour: 'red' }],
      ['an array body', [{ name: 'X' }]],
    ])('refuses %s with 400 invalid_request', async (_why, body) => {
      expectOAuthError(await call('PATCH', '/school', { token: await token('school:write'), json: body }), 400, 'invalid_request');
    });

    it('refuses a body that is not JSON', async () => {
      expectOAuthError(await call('PATCH', '/school', { token: await token('school:write'), raw: '{"name":', contentType: 'application/json' }), 400, 'invalid_request');
    });
  });

  describe('GET/PATCH /appearance and the logo', () => {
    it('is public with its defaults, for anonymous callers and tokens without appearance:read alike', async () => {
      const anonymous = await call('GET', '/appearance');
      expect(anonymous.status).toBe(200);
      expect(anonymous.json).toEqual({
        theme: 'auto',
        primary_color: '#1D4ED8',
        accent_color: '#F59E0B',
        logo_url: null,
        logo_file_id: null,
        effective_logo_url: null,
        updated_at: null,
      });
      const other = await call('GET', '/appearance', { token: await token('courses:read') });
      expect(other.json).toEqual(anonymous.json);
      const reader = await call('GET', '/appearance', { token: await token('appearance:read') });
      expect(reader.json).toEqual(anonymous.json);
    });

    it('changes theme, colours and an external logo with appearance:write', async () => {
      const res = await call('PATCH', '/appearance', { token: await token('appearance:write'), json: { theme: 'dark', primary_color: '#a1b2c3', logo_url: 'https://cdn.acme.test/logo.png' } });
      expect(res.status, res.text).toBe(200);
      expect(res.json).toMatchObject({ theme: 'dark', primary_color: '#A1B2C3', logo_url: 'https://cdn.acme.test/logo.png', effective_logo_url: 'https://cdn.acme.test/logo.png' });
      expect((await call('GET', '/appearance')).json).toMatchObject({ theme: 'dark', primary_color: '#A1B2C3' });
    });

    it('uses an uploaded image as the logo, served to everyone, and keeps the file from being deleted', async () => {
      const file = await uploadOk({ name: 'logo.png', type: 'image/png', bytes: PNG });
      const res = await call('PATCH', '/appearance', { token: await token('appearance:write'), json: { logo_file_id: file.id } });
      expect(res.status, res.text).toBe(200);
      expect(res.json).toMatchObject({ logo_file_id: file.id, logo_url: null, effective_logo_url: `${server.issuer}${API}/appearance/logo` });

      const logo = await fetch(`${server.issuer}${API}/appearance/logo`);
      expect(logo.status).toBe(200);
      expect(logo.headers.get('content-type')).toBe('image/png');
      expect(logo.headers.get('x-content-type-options')).toBe('nosniff');
      expect(Buffer.from(await logo.arrayBuffer()).equals(PNG)).toBe(true);

      const del = await call('DELETE', `/storage/${String(file.id)}`, { token: await token('storage:write') });
      expectOAuthError(del, 409, 'conflict');
      expect(del.json.error_description).toContain('logo');

      await call('PATCH', '/appearance', { token: await token('appearance:write'), json: { logo_file_id: null } });
      expectOAuthError(await call('GET', '/appearance/logo'), 404, 'not_found');
      expect((await call('DELETE', `/storage/${String(file.id)}`, { token: await token('storage:write') })).status).toBe(204);
    });

    it('needs appearance:write to change anything', async () => {
      expectNeedsToken(await call('PATCH', '/appearance', { json: { theme: 'light' } }));
      expectInsufficientScope(await call('PATCH', '/appearance', { token: await token('appearance:read'), json: { theme: 'light' } }), 'appearance:write');
    });

    it('refuses a logo_file_id that is not an image', async () => {
      const pdf = await uploadOk({ name: 'brochure.pdf', type: 'application/pdf', bytes: PDF });
      expectOAuthError(await call('PATCH', '/appearance', { token: await token('appearance:write'), json: { logo_file_id: pdf.id } }), 400, 'invalid_request');
    });

    it.each([
      ['an unknown theme', { theme: 'blue' }],
      ['a colour name', { primary_color: 'red' }],
      ['a short hex colour', { accent_color: '#123' }],
      ['an http logo_url', { logo_url: 'http://acme.test/logo.png' }],
      ['a logo_file_id that does not exist', { logo_file_id: 'fil_doesnotexist' }],
      ['a logo_file_id of the wrong shape', { logo_file_id: '../../etc/passwd' }],
      ['both logo_url and logo_file_id', { logo_url: 'https://acme.test/l.png', logo_file_id: 'fil_x' }],
      ['an empty body', {}],
    ])('refuses %s with 400 invalid_request', async (_why, body) => {
      expectOAuthError(await call('PATCH', '/appearance', { token: await token('appearance:write'), json: body }), 400, 'invalid_request');
    });
  });

  describe('GET /courses/:id/curriculum and POST .../reorder', () => {
    let published: string;
    let draft: string;
    let sections: string[];
    let lessons: Record<string, string[]>;

    beforeAll(async () => {
      published = String((await records.create(AREAS.courses, { title: 'Published course', status: 'published' })).id);
      draft = String((await records.create(AREAS.courses, { title: 'Draft course' })).id);
      const second = await records.create(AREAS.sections, { course_id: published, title: 'Second', position: 1 });
      const first = await records.create(AREAS.sections, { course_id: published, title: 'First', position: 0 });
      sections = [String(first.id), String(second.id)];
      lessons = {};
      for (const s of sections) {
        const b = await records.create(AREAS.lessons, { section_id: s, title: `${s} b`, position: 2, content: 'secret content' });
        const a = await records.create(AREAS.lessons, { section_id: s, title: `${s} a`, position: 1, content: 'secret content' });
        lessons[s] = [String(a.id), String(b.id)];
      }
      await records.create(AREAS.sections, { course_id: draft, title: 'Draft section' });
    });

    const ids = (list: unknown) => (list as { id: string }[]).map((x) => x.id);

    it('shows anonymous callers a published course in order, without lesson content', async () => {
      const res = await call('GET', `/courses/${published}/curriculum`);
      expect(res.status, res.text).toBe(200);
      expect(res.json.course).toMatchObject({ id: published, title: 'Published course', status: 'published' });
      const secs = res.json.sections as { id: string; lessons: Record<string, unknown>[] }[];
      expect(ids(secs)).toEqual(sections);
      for (const s of secs) {
        expect(ids(s.lessons)).toEqual(lessons[s.id]);
        for (const l of s.lessons) expect(l).not.toHaveProperty('content');
      }
      expect(res.text).not.toContain('secret content');
    });

    it('hides unpublished and unknown courses from callers without curriculum:read (404)', async () => {
      expectOAuthError(await call('GET', `/courses/${draft}/curriculum`), 404, 'not_found');
      expectOAuthError(await call('GET', `/courses/${draft}/curriculum`, { token: await token('courses:read') }), 404, 'not_found');
      expectOAuthError(await call('GET', '/courses/crs_unknown/curriculum'), 404, 'not_found');
      const other = await call('GET', `/courses/${published}/curriculum`, { token: await token('courses:read') });
      expect(other.status).toBe(200);
      expect(other.text).not.toContain('secret content');
    });

    it('shows curriculum:read any course with every field', async () => {
      const t = await token('curriculum:read');
      const res = await call('GET', `/courses/${published}/curriculum`, { token: t });
      expect(res.status).toBe(200);
      const secs = res.json.sections as { lessons: Record<string, unknown>[] }[];
      expect(secs[0]!.lessons[0]).toMatchObject({ content: 'secret content' });
      const d = await call('GET', `/courses/${draft}/curriculum`, { token: t });
      expect(d.status).toBe(200);
      expect((d.json.sections as unknown[]).length).toBe(1);
      expectOAuthError(await call('GET', '/courses/crs_unknown/curriculum', { token: t }), 404, 'not_found');
    });

    it('puts a section or lesson created without a position after the last one, in the order they were made', async () => {
      const course = String((await records.create(AREAS.courses, { title: 'Built in order', status: 'published' })).id);
      const t = await token('curriculum:write');
      const made: string[] = [];
      for (const title of ['Intro', 'Middle', 'End']) {
        const res = await call('POST', '/curriculum/sections', { token: t, json: { course_id: course, title } });
        expect(res.status, res.text).toBe(201);
        made.push(String(res.json.id));
      }
      for (const title of ['One', 'Two']) expect((await call('POST', '/curriculum/lessons', { token: t, json: { section_id: made[1], title } })).status).toBe(201);
      // An explicit position is kept as given, and the next one without goes after it.
      await call('POST', '/curriculum/lessons', { token: t, json: { section_id: made[1], title: 'Later', position: 5 } });
      await call('POST', '/curriculum/lessons', { token: t, json: { section_id: made[1], title: 'Last' } });
      const outline = await call('GET', `/courses/${course}/curriculum`);
      const secs = outline.json.sections as { id: string; title: string; position: number; lessons: { title: string; position: number }[] }[];
      expect(secs.map((s) => [s.title, s.position])).toEqual([
        ['Intro', 0],
        ['Middle', 1],
        ['End', 2],
      ]);
      expect(secs[1]!.lessons.map((l) => [l.title, l.position])).toEqual([
        ['One', 0],
        ['Two', 1],
        ['Later', 5],
        ['Last', 6],
      ]);
      // Another section's lessons start again at 0.
      const other = await call('POST', '/curriculum/lessons', { token: t, json: { section_id: made[2], title: 'First of End' } });
      expect(other.json.position).toBe(0);
    });

    it('reorders sections and lessons with curriculum:write', async () => {
      const [s0, s1] = sections as [string, string];
      const body = { sections: [s1, s0], lessons: { [s0]: [...lessons[s0]!].reverse() } };
      const res = await call('POST', `/courses/${published}/curriculum/reorder`, { token: await token('curriculum:write'), json: body });
      expect(res.status, res.text).toBe(200);
      expect(ids(res.json.sections)).toEqual([s1, s0]);
      const outline = await call('GET', `/courses/${published}/curriculum`);
      const secs = outline.json.sections as { id: string; position: number; lessons: { id: string; position: number }[] }[];
      expect(secs.map((s) => [s.id, s.position])).toEqual([
        [s1, 0],
        [s0, 1],
      ]);
      expect(ids(secs[1]!.lessons)).toEqual([...lessons[s0]!].reverse());
      expect(secs[1]!.lessons.map((l) => l.position)).toEqual([0, 1]);
      expect(ids(secs[0]!.lessons)).toEqual(lessons[s1]);
    });

    it('needs curriculum:write to reorder', async () => {
      const body = { sections };
      expectNeedsToken(await call('POST', `/courses/${published}/curriculum/reorder`, { json: body }));
      expectInsufficientScope(await call('POST', `/courses/${published}/curriculum/reorder`, { token: await token('curriculum:read'), json: body }), 'curriculum:write');
    });

    it('answers 404 for reordering an unknown course', async () => {
      expectOAuthError(await call('POST', '/courses/crs_unknown/curriculum/reorder', { token: await token('curriculum:write'), json: { sections: [] } }), 404, 'not_found');
    });

    it.each([
      ['sections missing', () => ({})],
      ['a section left out', () => ({ sections: [sections[0]] })],
      ['a section listed twice', () => ({ sections: [sections[0], sections[0]] })],
      ['a section of another course', () => ({ sections: [...sections, 'sec_other'] })],
      ['lessons for a section of another course', () => ({ sections, lessons: { sec_other: [] } })],
      ['a lesson left out of its section', () => ({ sections, lessons: { [sections[0]!]: [lessons[sections[0]!]![0]] } })],
      ['a lesson of another section', () => ({ sections, lessons: { [sections[0]!]: [lessons[sections[0]!]![0], lessons[sections[1]!]![0]] } })],
      ['sections that is not an array', () => ({ sections: 'all' })],
    ])('refuses %s with 400 invalid_request and changes nothing', async (_why, body) => {
      const before = await call('GET', `/courses/${published}/curriculum`);
      expectOAuthError(await call('POST', `/courses/${published}/curriculum/reorder`, { token: await token('curriculum:write'), json: body() }), 400, 'invalid_request');
      expect((await call('GET', `/courses/${published}/curriculum`)).json).toEqual(before.json);
    });
  });

  describe('/storage', () => {
    it('stores an upload under the data directory and answers 201 with its metadata', async () => {
      const bytes = Buffer.from('# Notes\n\nÇa marche — ünïcode.\n');
      const res = await upload([{ name: 'notes.md', type: 'text/markdown', bytes }], await token('storage:write'));
      expect(res.status, res.text).toBe(201);
      const user = await server.deps.store.users.findByEmail(server.user.email);
      expect(res.json).toEqual({
        id: expect.stringMatching(/^fil_/),
        name: 'notes.md',
        content_type: 'text/markdown',
        size: bytes.length,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        uploaded_by: user!.id,
        created_at: expect.any(String),
        download_url: `${server.issuer}${API}/storage/${String(res.json.id)}/content`,
      });
      expect(existsSync(join(filesDir(), String(res.json.id)))).toBe(true);
    });

    it('lists files newest first, up to limit', async () => {
      const t = await token('storage:write');
      const a = await uploadOk({ name: 'a.pdf', type: 'application/pdf', bytes: PDF });
      await new Promise((r) => setTimeout(r, 5));
      const b = await uploadOk({ name: 'b.png', type: 'image/png', bytes: PNG });
      const all = await call('GET', '/storage', { token: t });
      expect(all.status).toBe(200);
      const listed = ids(all.json.data);
      expect(listed.indexOf(String(b.id))).toBeLessThan(listed.indexOf(String(a.id)));
      const one = await call('GET', '/storage?limit=1', { token: t });
      expect(ids(one.json.data)).toEqual([b.id]);
      expectOAuthError(await call('GET', '/storage?limit=101', { token: t }), 400, 'invalid_request');
      expectOAuthError(await call('GET', '/storage?limit=0', { token: t }), 400, 'invalid_request');
    });

    const ids = (list: unknown) => (list as { id: string }[]).map((x) => x.id);

    it('downloads the bytes as an attachment with their type and nosniff', async () => {
      const file = await uploadOk({ name: 'résumé final;.pdf', type: 'application/pdf', bytes: PDF });
      const res = await fetch(String(file.download_url), { headers: { authorization: `Bearer ${await token('storage:write')}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/pdf');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-disposition')).toBe(`attachment; filename="r_sum_ final;.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9%20final%3B.pdf`);
      expect(Buffer.from(await res.arrayBuffer()).equals(PDF)).toBe(true);
    });

    it('deletes a file and its bytes (204), then answers 404', async () => {
      const t = await token('storage:write');
      const file = await uploadOk({ name: 'gone.png', type: 'image/png', bytes: PNG });
      expect((await call('DELETE', `/storage/${String(file.id)}`, { token: t })).status).toBe(204);
      expect(existsSync(join(filesDir(), String(file.id)))).toBe(false);
      expectOAuthError(await call('GET', `/storage/${String(file.id)}/content`, { token: t }), 404, 'not_found');
      expectOAuthError(await call('DELETE', `/storage/${String(file.id)}`, { token: t }), 404, 'not_found');
    });

    it('refuses to delete a file a digital product still uses (409)', async () => {
      const file = await uploadOk({ name: 'ebook.pdf', type: 'application/pdf', bytes: PDF });
      const product = await records.create(AREAS.digital_products, { name: 'E-book', file_id: file.id });
      const res = await call('DELETE', `/storage/${String(file.id)}`, { token: await token('storage:write') });
      expectOAuthError(res, 409, 'conflict');
      expect(res.json.error_description).toContain(String(product.id));
      await records.delete(AREAS.digital_products, String(product.id));
      expect((await call('DELETE', `/storage/${String(file.id)}`, { token: await token('storage:write') })).status).toBe(204);
    });

    it('answers 404 for unknown or malformed ids', async () => {
      const t = await token('storage:write');
      for (const id of ['fil_unknown', 'nope', '..%2F..%2Fetc%2Fpasswd']) {
        expectOAuthError(await call('GET', `/storage/${id}/content`, { token: t }), 404, 'not_found');
        expectOAuthError(await call('DELETE', `/storage/${id}`, { token: t }), 404, 'not_found');
      }
    });

    it('needs storage:write for every storage route', async () => {
      const other = await token('school:read');
      expectNeedsToken(await upload([{ name: 'x.png', type: 'image/png', bytes: PNG }]));
      expectInsufficientScope(await upload([{ name: 'x.png', type: 'image/png', bytes: PNG }], other), 'storage:write');
      for (const [method, path] of [
        ['GET', '/storage'],
        ['GET', '/storage/fil_x/content'],
        ['DELETE', '/storage/fil_x'],
      ] as const) {
        expectNeedsToken(await call(method, path));
        expectInsufficientScope(await call(method, path, { token: other }), 'storage:write');
      }
    });

    it('accepts a file of exactly 10 MiB and refuses one byte more with 413', async () => {
      const t = await token('storage:write');
      const exact = Buffer.alloc(10 * MiB, 0x61);
      const ok = await upload([{ name: 'big.txt', type: 'text/plain', bytes: exact }], t);
      expect(ok.status, ok.text).toBe(201);
      expect(ok.json.size).toBe(10 * MiB);
      const before = await server.deps.store.files.list(100);
      const res = await upload([{ name: 'bigger.txt', type: 'text/plain', bytes: Buffer.alloc(10 * MiB + 1, 0x61) }], t);
      expectOAuthError(res, 413, 'invalid_request');
      expect(await server.deps.store.files.list(100)).toEqual(before);
    });

    it.each([
      ['an executable', { name: 'app.exe', type: 'application/x-msdownload', bytes: Buffer.from('MZ\x90\x00') }],
      ['HTML', { name: 'page.html', type: 'text/html', bytes: Buffer.from('<script>alert(1)</script>') }],
      ['SVG', { name: 'logo.svg', type: 'image/svg+xml', bytes: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>') }],
      ['text declared as PNG', { name: 'fake.png', type: 'image/png', bytes: Buffer.from('<html>not a png</html>') }],
      ['binary declared as text', { name: 'fake.txt', type: 'text/plain', bytes: Buffer.from([0x00, 0xff, 0xfe, 0x00]) }],
      ['a PDF declared as a ZIP', { name: 'x.zip', type: 'application/zip', bytes: PDF }],
    ])('refuses %s with 415 invalid_request', async (_why, part) => {
      const before = await server.deps.store.files.list(100);
      expectOAuthError(await upload([part], await token('storage:write')), 415, 'invalid_request');
      expect(await server.deps.store.files.list(100)).toEqual(before);
    });

    it('refuses two files in one request (413) and stores neither', async () => {
      const before = await server.deps.store.files.list(100);
      const res = await upload(
        [
          { name: 'a.png', type: 'image/png', bytes: PNG },
          { name: 'b.png', type: 'image/png', bytes: PNG },
        ],
        await token('storage:write'),
      );
      expectOAuthError(res, 413, 'invalid_request');
      expect(await server.deps.store.files.list(100)).toEqual(before);
    });

    it('refuses more than five form fields (413)', async () => {
      const fields = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`f${i}`, 'v']));
      expectOAuthError(await upload([{ name: 'a.png', type: 'image/png', bytes: PNG }], await token('storage:write'), fields), 413, 'invalid_request');
    });

    it('refuses an empty file and a form without a file (400)', async () => {
      const t = await token('storage:write');
      expectOAuthError(await upload([{ name: 'empty.txt', type: 'text/plain', bytes: Buffer.alloc(0) }], t), 400, 'invalid_request');
      expectOAuthError(await upload([], t, { note: 'no file here' }), 400, 'invalid_request');
    });

    it('refuses a body that is not multipart with a JSON error', async () => {
      const t = await token('storage:write');
      expectOAuthError(await call('POST', '/storage', { token: t, json: { file: 'aGVsbG8=' } }), 415, 'invalid_request');
      expectOAuthError(await call('POST', '/storage', { token: t, raw: 'hello', contentType: 'application/octet-stream' }), 415, 'invalid_request');
      expectOAuthError(await call('POST', '/storage', { token: t }), 415, 'invalid_request');
    });

    it('refuses a malformed multipart body with 400', async () => {
      const t = await token('storage:write');
      expectOAuthError(await call('POST', '/storage', { token: t, raw: 'garbage', contentType: 'multipart/form-data' }), 400, 'invalid_request');
      const cut = '--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n\x89PNG';
      expectOAuthError(await call('POST', '/storage', { token: t, raw: cut, contentType: 'multipart/form-data; boundary=XyZ' }), 400, 'invalid_request');
    });
  });

  describe('GET /analytics', () => {
    const at = (iso: string) => Date.parse(iso);
    let students: [string, string];

    beforeAll(async () => {
      const store = server.deps.store.records;
      const course = String((await records.create(AREAS.courses, { title: 'Analytics course', status: 'published' })).id);
      const course2 = String((await records.create(AREAS.courses, { title: 'Analytics course 2', status: 'published' })).id);
      students = [
        String((await records.create(AREAS.students, { name: 'Ana', email: `ana-${randomBytes(3).toString('hex')}@x.test` })).id),
        String((await records.create(AREAS.students, { name: 'Bo', email: `bo-${randomBytes(3).toString('hex')}@x.test` })).id),
      ];
      const [ana, bo] = students;
      const row = (id: string, created: number, extra: Record<string, unknown>) => ({ id, created_at: created, updated_at: created, ...extra });
      await store.insert('enrollments', row('enr_a1', at('2024-01-15T10:00:00Z'), { student_id: ana, course_id: course, progress_percent: 0 }));
      await store.insert('enrollments', row('enr_b1', at('2024-01-20T10:00:00Z'), { student_id: bo, course_id: course, progress_percent: 0 }));
      await store.insert('enrollments', row('enr_a2', at('2024-03-31T23:59:00Z'), { student_id: ana, course_id: course2, progress_percent: 0 }));
      const order = (id: string, paid: string, extra: Record<string, unknown>) => row(id, at(paid), { student_id: bo, items: '[]', status: 'paid', paid_at: at(paid), ...extra });
      await store.insert('orders', order('ord_1', '2024-02-10T12:00:00Z', { total_cents: 1000, currency: 'USD' }));
      await store.insert('orders', order('ord_2', '2024-02-11T12:00:00Z', { total_cents: 500, currency: 'USD', status: 'refunded' }));
      await store.insert('orders', order('ord_3', '2024-03-05T12:00:00Z', { total_cents: 700, currency: 'EUR' }));
      await store.insert('orders', order('ord_4', '2024-03-06T12:00:00Z', { total_cents: 250, currency: null }));
      await store.insert('orders', order('ord_5', '2023-12-31T23:59:59Z', { total_cents: 9999, currency: 'USD' }));
      await store.insert('orders', order('ord_6', '2024-04-01T00:00:00Z', { total_cents: 9999, currency: 'USD' }));
      const plan = String((await records.create(AREAS.membership_plans, { name: 'Monthly' })).id);
      await records.create(AREAS.subscriptions, { student_id: ana, plan_id: plan, status: 'active' });
      await records.create(AREAS.subscriptions, { student_id: bo, plan_id: plan, status: 'cancelled' });
    });

    it('reports monthly series and totals for a range (UTC, inclusive days)', async () => {
      await call('PATCH', '/school', { token: await token('school:write'), json: { currency: 'USD' } });
      const res = await call('GET', '/analytics?from=2024-01-01&to=2024-03-31', { token: await token('analytics:read') });
      expect(res.status, res.text).toBe(200);
      const store = server.deps.store.records;
      expect(res.json).toEqual({
        currency: 'USD',
        interval: 'month',
        from: '2024-01-01',
        to: '2024-03-31',
        enrollments: [
          { period: '2024-01', count: 2 },
          { period: '2024-02', count: 0 },
          { period: '2024-03', count: 1 },
        ],
        revenue: [
          { period: '2024-01', total_cents: 0 },
          { period: '2024-02', total_cents: 1000 },
          { period: '2024-03', total_cents: 250 },
        ],
        active_students: [
          { period: '2024-01', count: 2 },
          { period: '2024-02', count: 1 },
          { period: '2024-03', count: 2 },
        ],
        lessons_completed: [
          { period: '2024-01', count: 0 },
          { period: '2024-02', count: 0 },
          { period: '2024-03', count: 0 },
        ],
        enrollments_completed: [
          { period: '2024-01', count: 0 },
          { period: '2024-02', count: 0 },
          { period: '2024-03', count: 0 },
        ],
        totals: {
          students: await store.count('students', []),
          courses_published: await store.count('courses', [['status', '=', 'published']]),
          enrollments: 3,
          revenue_cents: 1250,
          active_subscriptions: 1,
          lessons_completed: 0,
          enrollments_completed: 0,
          average_progress_percent: 0,
        },
      });
    });

    it('reports ISO weeks', async () => {
      const res = await call('GET', '/analytics?from=2024-01-15&to=2024-01-28&interval=week', { token: await token('analytics:read') });
      expect(res.status, res.text).toBe(200);
      expect(res.json.enrollments).toEqual([
        { period: '2024-W03', count: 2 },
        { period: '2024-W04', count: 0 },
      ]);
      const dec = await call('GET', '/analytics?from=2024-12-30&to=2025-01-05&interval=week', { token: await token('analytics:read') });
      expect((dec.json.enrollments as { period: string }[]).map((p) => p.period)).toEqual(['2025-W01']);
    });

    it('defaults to the twelve calendar months up to today', async () => {
      const res = await call('GET', '/analytics', { token: await token('analytics:read') });
      expect(res.status).toBe(200);
      const today = new Date(server.deps.now()).toISOString().slice(0, 10);
      expect(res.json).toMatchObject({ interval: 'month', to: today });
      const periods = (res.json.enrollments as { period: string }[]).map((p) => p.period);
      expect(periods).toHaveLength(12);
      expect(periods[11]).toBe(today.slice(0, 7));
      expect(res.json.from).toBe(`${periods[0]}-01`);
    });

    it('needs analytics:read', async () => {
      expectNeedsToken(await call('GET', '/analytics'));
      expectInsufficientScope(await call('GET', '/analytics', { token: await token('school:read') }), 'analytics:read');
    });

    it.each([
      ['a from that is no date', 'from=yesterday'],
      ['a date that does not exist', 'from=2024-02-30'],
      ['a date with a time', 'from=2024-01-01T00:00:00Z'],
      ['a date before 1970', 'from=1969-12-31&to=1970-01-05'],
      ['from after to', 'from=2024-03-01&to=2024-02-01'],
      ['a range over five years', 'from=2018-01-01&to=2024-01-02'],
      ['an unknown interval', 'interval=day'],
    ])('refuses %s with 400 invalid_request', async (_why, query) => {
      expectOAuthError(await call('GET', `/analytics?${query}`, { token: await token('analytics:read') }), 400, 'invalid_request');
    });
  });

  describe('GET/PATCH /account', () => {
    it("shows the token's own user without any password data", async () => {
      const res = await call('GET', '/account', { token: await token('account:read') });
      expect(res.status, res.text).toBe(200);
      const user = await server.deps.store.users.findByEmail(server.user.email);
      expect(res.json).toEqual({
        id: user!.id,
        email: server.user.email,
        name: user!.name,
        role: 'owner',
        created_at: new Date(user!.createdAt).toISOString(),
        updated_at: new Date(user!.updatedAt).toISOString(),
        student: null,
      });
      expect(res.text).not.toMatch(/password|argon2/i);
    });

    it("adds the student with the same email and only that student's enrollments, subscriptions and orders", async () => {
      const me = await records.create(AREAS.students, { name: 'Me', email: server.user.email.toUpperCase(), notes: 'private school note' });
      const other = await records.create(AREAS.students, { name: 'Other', email: `other-${randomBytes(3).toString('hex')}@x.test` });
      const course = String((await records.create(AREAS.courses, { title: 'Account course' })).id);
      const plan = String((await records.create(AREAS.membership_plans, { name: 'Yearly' })).id);
      const mine = await records.create(AREAS.enrollments, { student_id: me.id, course_id: course });
      await records.create(AREAS.enrollments, { student_id: other.id, course_id: course });
      const sub = await records.create(AREAS.subscriptions, { student_id: me.id, plan_id: plan });
      await records.create(AREAS.subscriptions, { student_id: other.id, plan_id: plan });
      const now = server.deps.now();
      await server.deps.store.records.insert('orders', { id: 'ord_mine', student_id: me.id, items: '[]', total_cents: 100, status: 'paid', paid_at: now, created_at: now, updated_at: now });
      await server.deps.store.records.insert('orders', { id: 'ord_theirs', student_id: other.id, items: '[]', total_cents: 200, status: 'paid', paid_at: now, created_at: now, updated_at: now });

      const res = await call('GET', '/account', { token: await token('account:read') });
      expect(res.status).toBe(200);
      const student = res.json.student as Record<string, unknown[]> & { id: string };
      expect(student.id).toBe(me.id);
      expect(student.enrollments!.map((e) => (e as { id: string }).id)).toEqual([mine.id]);
      expect(student.subscriptions!.map((e) => (e as { id: string }).id)).toEqual([sub.id]);
      expect(student.orders!.map((e) => (e as { id: string }).id)).toEqual(['ord_mine']);
      expect(res.text).not.toContain('private school note');
      expect(res.text).not.toContain(String(other.id));
    });

    it('changes the name with account:write', async () => {
      const res = await call('PATCH', '/account', { token: await token('account:write'), json: { name: '  Ada Lovelace ' } });
      expect(res.status, res.text).toBe(200);
      expect(res.json.name).toBe('Ada Lovelace');
      expect((await server.deps.store.users.findByEmail(server.user.email))!.name).toBe('Ada Lovelace');
    });

    it.each([
      ['an empty body', {}],
      ['a blank name', { name: '   ' }],
      ['a name over 200 characters', { name: 'n'.repeat(201) }],
      ['new_password without current_password', { new_password: 'long enough password' }],
      ['current_password alone', { current_password: 'whatever' }],
      ['a new_password under 8 characters', { current_password: 'x', new_password: 'short' }],
      ['a wrong current_password', { current_password: 'not the password', new_password: 'long enough password' }],
    ])('refuses %s with 400 invalid_request and changes nothing', async (_why, body) => {
      const before = await server.deps.store.users.findByEmail(server.user.email);
      expectOAuthError(await call('PATCH', '/account', { token: await token('account:write'), json: body }), 400, 'invalid_request');
      expect(await server.deps.store.users.findByEmail(server.user.email)).toEqual(before);
    });

    it('changes the password when the current one is given', async () => {
      const t = await token('account:write');
      const next = `new-${randomBytes(6).toString('hex')}`;
      const res = await call('PATCH', '/account', { token: t, json: { current_password: server.user.password, new_password: next } });
      expect(res.status, res.text).toBe(200);
      expect(res.text).not.toMatch(/password|argon2/i);
      const user = await server.deps.store.users.findByEmail(server.user.email);
      expect(await verifyPassword(user!.passwordHash, next)).toBe(true);
      // Later sign-ins of this run use the new password; the change revoked every token the run held.
      server.user.password = next;
      tokens.clear();
    });

    it('needs account:read to read and account:write to change', async () => {
      expectNeedsToken(await call('GET', '/account'));
      expectNeedsToken(await call('PATCH', '/account', { json: { name: 'X' } }));
      expectInsufficientScope(await call('GET', '/account', { token: await token('account:write') }), 'account:read');
      expectInsufficientScope(await call('PATCH', '/account', { token: await token('account:read'), json: { name: 'X' } }), 'account:write');
    });
  });

  describe('/openapi.json', () => {
    it('documents every route with its scope', async () => {
      const doc = (await (await fetch(`${server.issuer}/openapi.json`)).json()) as { paths: Record<string, Record<string, { security?: unknown[] }>> };
      const expected: [string, string, Scope, boolean][] = [
        ['/api/v1/school', 'get', 'school:read', true],
        ['/api/v1/school', 'patch', 'school:write', false],
        ['/api/v1/appearance', 'get', 'appearance:read', true],
        ['/api/v1/appearance', 'patch', 'appearance:write', false],
        ['/api/v1/appearance/logo', 'get', 'appearance:read', true],
        ['/api/v1/courses/{id}/curriculum', 'get', 'curriculum:read', true],
        ['/api/v1/courses/{id}/curriculum/reorder', 'post', 'curriculum:write', false],
        ['/api/v1/storage', 'post', 'storage:write', false],
        ['/api/v1/storage', 'get', 'storage:write', false],
        ['/api/v1/storage/{id}/content', 'get', 'storage:write', false],
        ['/api/v1/storage/{id}', 'delete', 'storage:write', false],
        ['/api/v1/analytics', 'get', 'analytics:read', false],
        ['/api/v1/account', 'get', 'account:read', false],
        ['/api/v1/account', 'patch', 'account:write', false],
      ];
      for (const [path, method, scope, publicView] of expected) {
        const op = doc.paths[path]?.[method];
        expect(op, `${method} ${path}`).toBeDefined();
        expect(op!.security).toEqual([{ lyceum_oauth: [scope] }, ...(publicView ? [{}] : [])]);
      }
      expect(Object.keys((doc.paths['/api/v1/storage']!.post as { requestBody: { content: object } }).requestBody.content)).toEqual(['multipart/form-data']);
    });
  });
});
