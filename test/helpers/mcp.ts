/**
 * Raw Streamable HTTP calls to /mcp, a recorder of the HTTP traffic of the
 * SDK's client, and catalog rows written straight into the store.
 */
import { randomBytes } from 'node:crypto';
import { AREAS, type AreaDef } from '../../src/platform/areas.ts';
import { recordToRow } from '../../src/platform/fields.ts';
import type { TestServer } from './server.ts';

/** What a Streamable HTTP client must accept on every POST. */
export const MCP_ACCEPT = 'application/json, text/event-stream';

export interface McpResponse {
  status: number;
  headers: Headers;
  /** The parsed body; undefined when it is not JSON. */
  json: unknown;
  text: string;
}

export interface McpPost {
  authorization?: string;
  /** Sent exactly as given instead of JSON.stringify(message). */
  raw?: string;
  headers?: Record<string, string>;
}

/** One POST to /mcp with the headers a Streamable HTTP client sends. */
export async function mcpPost(issuer: string, message: unknown, opts: McpPost = {}): Promise<McpResponse> {
  const headers: Record<string, string> = { accept: MCP_ACCEPT, 'content-type': 'application/json', ...opts.headers };
  if (opts.authorization !== undefined) headers.authorization = opts.authorization;
  const res = await fetch(`${issuer}/mcp`, { method: 'POST', headers, body: opts.raw ?? JSON.stringify(message) });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text };
}

let rpcId = 0;

export const rpc = (method: string, params?: Record<string, unknown>) => ({ jsonrpc: '2.0' as const, id: ++rpcId, method, ...(params ? { params } : {}) });

export const toolCall = (name: string, args: Record<string, unknown> = {}) => rpc('tools/call', { name, arguments: args });

/** The `result` of a JSON-RPC response, failing loudly on anything else. */
export function resultOf(res: McpResponse): Record<string, unknown> {
  const body = res.json as { result?: Record<string, unknown>; error?: unknown } | undefined;
  if (res.status !== 200 || !body?.result) throw new Error(`expected a JSON-RPC result, got ${res.status}: ${res.text}`);
  return body.result;
}

/** One HTTP exchange the SDK's client made. */
export interface Exchange {
  method: string;
  url: URL;
  /** Request body as sent (form or JSON text); empty for none. */
  body: string;
  authorization: string | null;
  status: number;
  wwwAuthenticate: string | null;
}

/** A fetch that records every exchange, for the transport's `fetch` option. */
export function recordingFetch(): { fetch: (url: string | URL, init?: RequestInit) => Promise<Response>; log: Exchange[] } {
  const log: Exchange[] = [];
  return {
    log,
    async fetch(url, init = {}) {
      const headers = new Headers(init.headers);
      const body = init.body === undefined || init.body === null ? '' : String(init.body);
      const res = await fetch(url, init);
      log.push({
        method: (init.method ?? 'GET').toUpperCase(),
        url: new URL(String(url)),
        body,
        authorization: headers.get('authorization'),
        status: res.status,
        wwwAuthenticate: res.headers.get('www-authenticate'),
      });
      return res;
    },
  };
}

/** Form fields of a recorded form-encoded request. */
export const formOf = (e: Exchange) => Object.fromEntries(new URLSearchParams(e.body));

export interface Seeded {
  lecturers: { id: string; name: string }[];
  courses: { published: string[]; draft: string[]; archived: string[] };
  plans: { published: string[]; draft: string[] };
  products: { published: string[]; draft: string[] };
  events: { upcoming: string[]; past: string[]; draft: string[] };
  posts: { published: string[]; draft: string[] };
  students: { id: string; email: string }[];
  orders: string[];
  /** A word only the titles of draft records contain. */
  draftWord: string;
}

/**
 * Writes one row as the record service would store it: defaults, then the
 * values, with id and times. Returns the id.
 */
export async function insertRecord(server: TestServer, area: AreaDef, values: Record<string, unknown>, createdAt: number): Promise<string> {
  const defaults: Record<string, unknown> = {};
  for (const [name, f] of Object.entries(area.fields)) if (f.default !== undefined) defaults[name] = f.default;
  const id = `${area.idPrefix}_${randomBytes(9).toString('base64url')}`;
  await server.deps.store.records.insert(area.name, {
    ...recordToRow(area.fields, defaults),
    ...recordToRow(area.fields, values),
    id,
    created_at: createdAt,
    updated_at: createdAt,
  });
  return id;
}

/**
 * A small school: published, draft and archived records of every catalog
 * area, upcoming and past events, students and orders. Creation times are
 * one second apart so list order is the insertion order.
 */
export async function seedSchool(server: TestServer): Promise<Seeded> {
  const now = server.deps.now();
  let t = now - 3_600_000;
  const put = (area: AreaDef, values: Record<string, unknown>) => insertRecord(server, area, values, (t += 1000));
  const draftWord = `draftonly${randomBytes(3).toString('hex')}`;
  const day = 86_400_000;

  const lecturers: Seeded['lecturers'] = [];
  for (const [name, headline] of [
    ['Ada Lovelace', 'Analytical engines'],
    ['Alan Turing', 'Computability'],
    ['Grace Hopper', 'Compilers'],
  ] as const) {
    const id = await put(AREAS.lecturers, { name, headline, bio: `${name} teaches here.`, expertise: ['maths'], email: `${name.split(' ')[0]!.toLowerCase()}@private.test` });
    lecturers.push({ id, name });
  }

  const course = (title: string, status: string, extra: Record<string, unknown> = {}) =>
    put(AREAS.courses, {
      title,
      slug: `${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${randomBytes(3).toString('hex')}`,
      summary: `About ${title}`,
      status,
      lecturer_ids: [lecturers[0]!.id],
      ...extra,
    });
  const courses: Seeded['courses'] = { published: [], draft: [], archived: [] };
  courses.published.push(await course('Intro to Algebra', 'published', { level: 'beginner', price_cents: 0 }));
  courses.draft.push(await course(`Secret ${draftWord} Course`, 'draft', { level: 'advanced' }));
  courses.published.push(await course('Advanced Calculus', 'published', { level: 'advanced', price_cents: 4900 }));
  courses.published.push(await course('Geometry in French', 'published', { level: 'intermediate', language: 'fr', price_cents: 1500 }));
  courses.archived.push(await course(`Old ${draftWord} Course`, 'archived'));
  courses.published.push(await course('Number Theory', 'published', { level: 'advanced', price_cents: 9900 }));
  courses.draft.push(await course(`Unfinished ${draftWord} Statistics`, 'draft'));
  courses.published.push(await course('Probability Basics', 'published', { level: 'beginner', price_cents: 2500 }));

  const plans: Seeded['plans'] = { published: [], draft: [] };
  plans.published.push(await put(AREAS.membership_plans, { name: 'Monthly', price_cents: 1900, interval: 'month', benefits: ['All courses'], status: 'published' }));
  plans.draft.push(await put(AREAS.membership_plans, { name: `Plan ${draftWord}`, price_cents: 100, status: 'draft' }));
  plans.published.push(await put(AREAS.membership_plans, { name: 'Yearly', price_cents: 19000, interval: 'year', status: 'published' }));

  const products: Seeded['products'] = { published: [], draft: [] };
  products.published.push(await put(AREAS.digital_products, { name: 'Formula Sheet', format: 'PDF', price_cents: 500, status: 'published' }));
  products.draft.push(await put(AREAS.digital_products, { name: `Pack ${draftWord}`, format: 'ZIP', status: 'draft' }));
  products.published.push(await put(AREAS.digital_products, { name: 'Exam Templates', format: 'DOCX', price_cents: 0, status: 'published' }));

  const events: Seeded['events'] = { upcoming: [], past: [], draft: [] };
  const iso = (ms: number) => new Date(ms).toISOString();
  events.upcoming.push(await put(AREAS.events, { title: 'Open Day', starts_at: iso(now + 20 * day), location: 'Main hall', online_url: 'https://meet.example.test/private', status: 'published' }));
  events.past.push(await put(AREAS.events, { title: 'Last Year Workshop', starts_at: iso(now - 10 * day), status: 'published' }));
  events.draft.push(await put(AREAS.events, { title: `Event ${draftWord}`, starts_at: iso(now + 5 * day), status: 'draft' }));
  events.upcoming.push(await put(AREAS.events, { title: 'Algebra Webinar', starts_at: iso(now + 3 * day), location: 'Online', price_cents: 1000, status: 'published' }));

  const posts: Seeded['posts'] = { published: [], draft: [] };
  posts.published.push(await put(AREAS.posts, { title: 'Welcome', slug: `welcome-${randomBytes(3).toString('hex')}`, excerpt: 'Hello', published_at: iso(now - 2 * day), status: 'published' }));
  posts.draft.push(await put(AREAS.posts, { title: `Post ${draftWord}`, slug: `draft-${randomBytes(3).toString('hex')}`, status: 'draft' }));
  posts.published.push(await put(AREAS.posts, { title: 'Exam Tips', slug: `tips-${randomBytes(3).toString('hex')}`, excerpt: 'Sleep well', status: 'published' }));

  const students: Seeded['students'] = [];
  for (const name of ['Stu Dent', 'Pupil Two']) {
    const email = `${name.replace(' ', '.').toLowerCase()}-${randomBytes(3).toString('hex')}@school.test`;
    students.push({ id: await put(AREAS.students, { name, email, status: 'active' }), email });
  }
  const orders = [
    await put(AREAS.orders, {
      student_id: students[0]!.id,
      items: [{ kind: 'course', id: courses.published[1], name: 'Advanced Calculus', price_cents: 4900 }],
      total_cents: 4900,
      currency: 'USD',
      status: 'paid',
      paid_at: iso(now - day),
    }),
    await put(AREAS.orders, { student_id: students[1]!.id, items: [], total_cents: 1900, currency: 'USD', status: 'pending' }),
  ];

  return { lecturers, courses, plans, products, events, posts, students, orders, draftWord };
}

/** The scopes the tools need or show more with, as the PRM of /mcp lists them. */
export const MCP_SCOPES = [
  'account:read',
  'account:write',
  'analytics:read',
  'appearance:write',
  'comments:read',
  'coupons:read',
  'coupons:write',
  'courses:read',
  'courses:write',
  'curriculum:read',
  'curriculum:write',
  'digital_products:read',
  'digital_products:write',
  'events:read',
  'events:write',
  'forms:read',
  'lecturers:read',
  'lecturers:write',
  'members:read',
  'members:write',
  'membership_plans:read',
  'membership_plans:write',
  'orders:read',
  'pages:read',
  'pages:write',
  'posts:read',
  'posts:write',
  'school:read',
  'school:write',
  'storage:write',
  'students:read',
  'students:write',
  'subscriptions:read',
  'subscriptions:write',
];

/** Every scope the MCP tools declare, as the PRM for /mcp lists them. */
export async function mcpPrm(issuer: string): Promise<{ resource: string; authorization_servers: string[]; scopes_supported: string[] }> {
  const res = await fetch(`${issuer}/.well-known/oauth-protected-resource/mcp`);
  if (res.status !== 200) throw new Error(`PRM for /mcp: ${res.status}`);
  return (await res.json()) as { resource: string; authorization_servers: string[]; scopes_supported: string[] };
}

/**
 * The summary of a tool answer: its text is the summary, a blank line and
 * the structured content as JSON (so a client that shows the model only the
 * text loses nothing); anything else fails.
 */
export function summaryOf(result: { content: { type: string; text?: string }[]; structuredContent?: Record<string, unknown> }): string {
  const text = result.content.find((c) => c.type === 'text')?.text ?? '';
  const json = JSON.stringify(result.structuredContent);
  if (!text.endsWith(`\n\n${json}`)) throw new Error(`the text does not end with the structured content: ${text.slice(0, 300)}`);
  return text.slice(0, -json.length - 2);
}
