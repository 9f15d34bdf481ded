/**
 * `/` and `/courses/{slug}` over real HTTP on each store: the school as the
 * anonymous API shows it (published courses only, public fields only, their
 * outlines), a "Connect your agent" section whose snippets carry the
 * configured PUBLIC_URL, and course pages that escape what staff wrote.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { ALL_SCOPES, api, marker, tokenSource } from '../helpers/records.ts';
import { startTestServer } from '../helpers/server.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

const PUBLIC_URL = 'https://school.example.test';

describe.each(STORE_KINDS)('the home page (%s)', (kind) => {
  let server: FlowServer;
  let owner: (path: string, body: unknown) => Promise<Record<string, unknown>>;
  let published: Record<string, unknown>;
  let draft: Record<string, unknown>;
  let lessonContent: string;

  beforeAll(async () => {
    server = await startFlowServer(kind);
    const token = tokenSource(server);
    owner = async (path, body) => {
      const res = await api(server.url, 'POST', path, { token: await token(ALL_SCOPES), body });
      if (res.status !== 201) throw new Error(`${path}: ${res.status} ${res.text}`);
      return res.json;
    };
    await api(server.url, 'PATCH', '/school', { token: await token(ALL_SCOPES), body: { name: 'Birchwood <School>', description: 'Evening classes & more.' } });
    published = await owner('/courses', {
      title: `Pottery <b>basics</b> ${marker()}`,
      summary: 'Clay, wheels and kilns.',
      description: '## What you will make\n\n- a bowl\n\n<script>alert(1)</script> [bad](javascript:alert(1))',
      status: 'published',
      price_cents: 2500,
    });
    draft = await owner('/courses', { title: `Unannounced ${marker()}`, status: 'draft' });
    const section = await owner('/curriculum/sections', { course_id: published.id, title: 'Centring the clay' });
    lessonContent = marker('secret lesson body ');
    await owner('/curriculum/lessons', { section_id: section.id, title: 'Wedging', kind: 'video', duration_minutes: 12, content: lessonContent });
  });
  afterAll(async () => {
    await server?.stop();
  });

  const get = async (path: string) => {
    const res = await fetch(`${server.url}${path}`);
    return { status: res.status, type: res.headers.get('content-type'), html: await res.text() };
  };

  it('shows the school, its published courses with their outlines and links, never a draft or a private field', async () => {
    const home = await get('/');
    expect(home.status).toBe(200);
    expect(home.type).toBe('text/html; charset=utf-8');
    expect(home.html).toContain('<h1>Birchwood &lt;School&gt;</h1>');
    expect(home.html).toContain('Evening classes &amp; more.');
    expect(home.html).toContain(`<a href="/courses/${String(published.slug)}">Pottery &lt;b&gt;basics&lt;/b&gt;`);
    expect(home.html).toContain('Centring the clay');
    expect(home.html).toContain('Wedging <span class="muted">(video, 12 min)</span>');
    expect(home.html).not.toContain(String(draft.title));
    expect(home.html).not.toContain(lessonContent);
    // The same courses as the anonymous API lists.
    const anonymous = await api(server.url, 'GET', '/courses?limit=100');
    for (const c of anonymous.json.data as { title: string }[]) expect(home.html).toContain(c.title.replaceAll('<', '&lt;').replaceAll('>', '&gt;'));
  });

  it('fills the configured PUBLIC_URL into every "Connect your agent" snippet', async () => {
    // A server that believes it is PUBLIC_URL; requests still reach it on its loopback port.
    const behindProxy = await startTestServer(kind, { PUBLIC_URL });
    let home: string;
    try {
      home = await (await fetch(`${behindProxy.url}/`)).text();
    } finally {
      await behindProxy.close();
    }
    const mcp = `${PUBLIC_URL}/mcp`;
    expect(home).toContain(`<code>claude mcp add --transport http lyceum ${mcp}</code>`);
    expect(home).toContain(`&quot;url&quot;: &quot;${mcp}&quot;`);
    expect(home).toContain(`&quot;mcpServers&quot;`);
    expect(home).toContain(`<code>npx mcp-remote ${mcp}</code>`);
    expect(home).toContain(`<code>npx mcp-remote ${mcp} --device-code</code>`);
    expect(home).not.toContain(behindProxy.url);
    for (const doc of ['/auth.md', '/openapi.json', '/llms.txt', '/oauth/sign-in?return_to=%2Faccount%2Fapps']) expect(home).toContain(`href="${doc}"`);
  });

  it('pages its course list: "More courses" leads to the rest, and a cursor it did not make shows the first page', async () => {
    for (let i = 0; i < 12; i++) await owner('/courses', { title: `Extra ${i} ${marker()}`, status: 'published' });
    const first = (await get('/')).html;
    const more = /href="(\/\?cursor=[^"]+)"/.exec(first)?.[1];
    expect(more).toBeDefined();
    const second = await get(more!.replaceAll('&amp;', '&'));
    expect(second.status).toBe(200);
    const titles = (page: string) => [...page.matchAll(/<h3><a href="\/courses\/[^"]+">([^<]+)</g)].map((m) => m[1]);
    expect(titles(second.html).filter((t) => titles(first).includes(t))).toEqual([]);
    expect(titles(first).length + titles(second.html).length).toBe(13);
    expect(titles((await get('/?cursor=not-ours')).html)).toEqual(titles(first));
  });

  it('shows a published course with its description as Markdown, raw HTML and script links made harmless', async () => {
    const page = await get(`/courses/${String(published.slug)}`);
    expect(page.status).toBe(200);
    expect(page.html).toContain('<h2>What you will make</h2>');
    expect(page.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page.html).not.toContain('<script>');
    expect(page.html).not.toContain('href="javascript:');
    expect(page.html).toMatch(/\b25\.00\b/);
    expect(page.html).not.toContain(lessonContent);
  });

  it('answers a draft or unknown course with a readable 404 page', async () => {
    for (const slug of [String(draft.slug), 'no-such-course', 'x'.repeat(500)]) {
      const page = await get(`/courses/${slug}`);
      expect(page.status).toBe(404);
      expect(page.type).toBe('text/html; charset=utf-8');
      expect(page.html).toContain('No such course');
      expect(page.html).not.toContain(String(draft.title));
    }
  });
});
