/**
 * The demo school: what seedDemo writes on every store, that its records hold
 * together (references, order totals, API limits), that clearPlatform leaves
 * accounts alone, and the CLI and first start that use it.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AREA_LIST } from '../../src/platform/areas.ts';
import { rowToRecord } from '../../src/platform/fields.ts';
import { COURSES } from '../../src/demo/catalog.ts';
import { buildDemo, clearPlatform, isPlatformEmpty, seedDemo } from '../../src/demo/seed.ts';
import { openStore } from '../../src/store/kysely/open.ts';
import { databaseLimits } from '../../src/config/index.ts';
import { AnalyticsService } from '../../src/platform/analytics.ts';
import SQLite from 'better-sqlite3';
import type { Row, Store } from '../../src/store/types.ts';
import { freePort, startTestServer, type TestServer } from '../helpers/server.ts';
import { spawnServe, type ServeProcess } from '../helpers/spawn-serve.ts';
import { databaseConfig, freshDatabaseUrl, STORE_KINDS } from '../helpers/stores.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DAY = 24 * 3600 * 1000;
const PUBLISHED_COURSES = COURSES.filter((c) => c.status === 'published')
  .map((c) => c.slug)
  .sort();

async function countAll(store: Store): Promise<Record<string, number>> {
  const entries = await Promise.all(AREA_LIST.map(async (a) => [a.name, await store.records.count(a.name, [])] as const));
  return Object.fromEntries(entries);
}

async function rowsOf(store: Store, table: string): Promise<Row[]> {
  const area = AREA_LIST.find((a) => a.name === table)!;
  return store.records.select(table, ['id', 'created_at', 'updated_at', ...Object.keys(area.fields)], []);
}

const records = async (store: Store, table: string) => (await rowsOf(store, table)).map((r) => rowToRecord(AREA_LIST.find((a) => a.name === table)!.fields, r));

const countBy = <T>(list: T[], key: (x: T) => unknown) => {
  const out: Record<string, number> = {};
  for (const x of list) out[String(key(x))] = (out[String(key(x))] ?? 0) + 1;
  return out;
};

describe.each(STORE_KINDS)('the demo school on %s', (kind) => {
  let store: Store;
  const now = Date.now();
  let seeded: Record<string, number>;

  beforeAll(async () => {
    store = openStore(databaseConfig(await freshDatabaseUrl(kind)));
    await store.migrate();
    expect(await isPlatformEmpty(store)).toBe(true);
    seeded = await seedDemo(store, now);
  });

  afterAll(async () => {
    await store?.close();
  });

  it('fills every area, and the counts it reports are what the store holds', async () => {
    const counts = await countAll(store);
    expect(counts).toEqual(seeded);
    for (const area of AREA_LIST) expect(counts[area.name], area.name).toBeGreaterThan(0);
    expect(counts).toMatchObject({
      lecturers: 6,
      courses: 12,
      membership_plans: 3,
      digital_products: 5,
      events: 6,
      posts: 8,
      students: 30,
      coupons: 4,
      orders: 40,
      forms: 2,
    });
    expect(await isPlatformEmpty(store)).toBe(false);
  });

  // The pool's bounds are PostgreSQL's; SQLite has its one connection and no acquire bound.
  it.runIf(kind === 'postgres')('is written whole through one pool connection that no query waits for longer than 100 ms', async () => {
    // A busy server, as the pool sees it: one connection, the shortest acquire bound.
    const tight = openStore(databaseConfig(await freshDatabaseUrl(kind)), databaseLimits({ DB_POOL_SIZE: '1', DB_ACQUIRE_TIMEOUT_MS: '100' }));
    try {
      await tight.migrate();
      expect(await seedDemo(tight, now)).toEqual(seeded);
    } finally {
      await tight.close();
    }
  });

  it('has the school settings and appearance', async () => {
    const school = await store.settings.get('school');
    expect(school).toMatchObject({ name: expect.any(String), currency: expect.stringMatching(/^(EUR|USD)$/), locale: expect.any(String), timezone: expect.any(String) });
    for (const key of ['description', 'contact_email', 'website']) expect(school?.[key], key).toEqual(expect.any(String));
    const appearance = await store.settings.get('appearance');
    expect(appearance).toMatchObject({ theme: expect.any(String), primary_color: expect.stringMatching(/^#[0-9A-Fa-f]{6}$/), accent_color: expect.stringMatching(/^#[0-9A-Fa-f]{6}$/) });
  });

  it('mixes statuses and dates the way a living school does', async () => {
    const courses = await records(store, 'courses');
    expect(countBy(courses, (c) => c.status)).toEqual({ published: 8, draft: 2, archived: 2 });
    expect(new Set(courses.map((c) => c.level))).toEqual(new Set(['beginner', 'intermediate', 'advanced']));
    expect(courses.every((c) => (c.lecturer_ids as string[]).length > 0)).toBe(true);

    const sections = await records(store, 'sections');
    const lessons = await records(store, 'lessons');
    for (const c of courses) {
      const own = sections.filter((s) => s.course_id === c.id);
      expect(own.length, String(c.title)).toBeGreaterThanOrEqual(3);
      expect(own.length, String(c.title)).toBeLessThanOrEqual(5);
      expect(own.map((s) => s.position).sort()).toEqual(own.map((_, i) => i));
      for (const s of own) {
        const n = lessons.filter((l) => l.section_id === s.id).length;
        expect(n, String(s.title)).toBeGreaterThanOrEqual(2);
        expect(n, String(s.title)).toBeLessThanOrEqual(5);
      }
    }
    expect(lessons.some((l) => l.free_preview === true)).toBe(true);
    expect(new Set(lessons.map((l) => l.kind))).toEqual(new Set(['video', 'text', 'quiz', 'assignment']));
    expect(lessons.every((l) => typeof l.content === 'string' && /^#/.test(l.content) && Number(l.duration_minutes) > 0)).toBe(true);

    const plans = await records(store, 'membership_plans');
    expect(plans.every((p) => p.status === 'published' && (p.benefits as string[]).length > 0)).toBe(true);
    expect(new Set(plans.map((p) => p.interval))).toEqual(new Set(['month', 'year']));
    expect(countBy(await records(store, 'digital_products'), (p) => p.status)).toEqual({ published: 4, draft: 1 });

    const events = await records(store, 'events');
    const when = (e: Record<string, unknown>) => Date.parse(String(e.starts_at));
    expect(events.filter((e) => e.status === 'published' && when(e) > now)).toHaveLength(4);
    expect(events.filter((e) => e.status === 'published' && when(e) < now)).toHaveLength(1);
    expect(events.filter((e) => e.status === 'draft')).toHaveLength(1);
    expect(events.every((e) => Date.parse(String(e.ends_at)) > when(e))).toBe(true);
    expect(await store.records.count('event_attendees', [])).toBeGreaterThanOrEqual(6);

    const posts = await records(store, 'posts');
    expect(posts.filter((p) => p.status === 'published' && typeof p.published_at === 'string' && Date.parse(p.published_at) <= now)).toHaveLength(6);
    expect(posts.filter((p) => p.status === 'draft' && p.published_at === null)).toHaveLength(2);

    const pages = await records(store, 'pages');
    expect(
      pages
        .filter((p) => p.status === 'published')
        .map((p) => p.slug)
        .sort(),
    ).toEqual(['about', 'faq', 'privacy', 'terms']);
    expect(pages.filter((p) => p.status === 'draft')).toHaveLength(1);

    const members = await records(store, 'members');
    expect(countBy(members, (m) => m.role)).toMatchObject({ owner: 1, admin: 1, lecturer: 6 });
    expect(members.some((m) => m.role === 'support')).toBe(true);

    const orders = await records(store, 'orders');
    for (const o of orders) {
      expect(['paid', 'refunded']).toContain(o.status);
      const paid = Date.parse(String(o.paid_at));
      expect(paid).toBeLessThan(now);
      expect(paid).toBeGreaterThan(now - 366 * DAY);
    }
    expect(orders.some((o) => o.status === 'refunded')).toBe(true);

    const enrollments = await records(store, 'enrollments');
    expect(new Set(enrollments.map((e) => e.student_id)).size).toBe(30);
    for (const e of enrollments) expect(e.completed_at !== null, String(e.id)).toBe(e.progress_percent === 100);
    expect(await store.records.count('subscriptions', [])).toBeGreaterThan(0);
    expect(countBy(await records(store, 'comments'), (c) => c.target_type)).toMatchObject({ course: expect.any(Number), post: expect.any(Number) });
    expect(await store.records.count('form_submissions', [])).toBeGreaterThanOrEqual(2);
  });

  it('has lesson progress: each enrollment has the completions its percent and completed_at are computed from', async () => {
    const enrollments = await records(store, 'enrollments');
    const completions = await store.records.select('lesson_completions', ['enrollment_id', 'lesson_id', 'course_id', 'completed_at'], []);
    const lessons = await store.records.select('lessons', ['id', 'course_id'], []);
    for (const e of enrollments) {
      const total = lessons.filter((l) => l.course_id === e.course_id).length;
      const mine = completions.filter((c) => c.enrollment_id === e.id);
      for (const c of mine) expect(lessons.find((l) => l.id === c.lesson_id)?.course_id, String(e.id)).toBe(e.course_id);
      // Rounded down: 100 only when every lesson is completed (the rule stated by hand, not read from the code).
      expect(e.progress_percent, String(e.id)).toBe(Math.floor((mine.length * 100) / total));
      const last = Math.max(...mine.map((c) => Number(c.completed_at)));
      expect(e.completed_at, String(e.id)).toBe(mine.length === total ? new Date(last).toISOString() : null);
      for (const c of mine) expect(Number(c.completed_at)).toBeLessThanOrEqual(now);
    }
    const percents = enrollments.map((e) => Number(e.progress_percent));
    expect(percents.filter((p) => p === 100).length).toBeGreaterThan(5);
    expect(percents.filter((p) => p > 0 && p < 100).length).toBeGreaterThan(5);
  });

  it('every reference points at an existing record', async () => {
    const ids = new Map<string, Set<string>>();
    for (const area of AREA_LIST) ids.set(area.name, new Set((await store.records.select(area.name, ['id'], [])).map((r) => String(r.id))));
    let checked = 0;
    for (const area of AREA_LIST) {
      const rows = await rowsOf(store, area.name);
      for (const row of rows) {
        for (const [name, f] of Object.entries(area.fields)) {
          if (f.type !== 'ref' || row[name] === null || row[name] === undefined) continue;
          expect(ids.get(f.ref!)?.has(String(row[name])), `${area.name} ${String(row.id)} ${name} → ${String(row[name])}`).toBe(true);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(300);

    const courses = await records(store, 'courses');
    for (const c of courses) for (const l of c.lecturer_ids as string[]) expect(ids.get('lecturers')?.has(l), `${String(c.id)} lecturer ${l}`).toBe(true);
    const sections = new Map((await records(store, 'sections')).map((s) => [s.id, s]));
    for (const l of await records(store, 'lessons')) expect(l.course_id, String(l.id)).toBe(sections.get(l.section_id)?.course_id);
    for (const c of await records(store, 'comments')) {
      const table = { course: 'courses', post: 'posts', lesson: 'lessons' }[String(c.target_type)]!;
      expect(ids.get(table)?.has(String(c.target_id)), String(c.id)).toBe(true);
    }
    const itemTables: Record<string, string> = { course: 'courses', membership_plan: 'membership_plans', digital_product: 'digital_products' };
    for (const o of await records(store, 'orders')) {
      for (const item of o.items as { kind: string; id: string }[]) expect(ids.get(itemTables[item.kind]!)?.has(item.id), `${String(o.id)} ${item.kind} ${item.id}`).toBe(true);
    }
    // Nobody is enrolled in a course that was never released; every paid course order has its enrolment.
    const released = new Set(courses.filter((c) => c.status !== 'draft').map((c) => c.id));
    const enrollments = await records(store, 'enrollments');
    for (const e of enrollments) expect(released.has(e.course_id), String(e.id)).toBe(true);
    const enrolled = new Set(enrollments.map((e) => `${String(e.student_id)} ${String(e.course_id)}`));
    for (const o of await records(store, 'orders')) {
      if (o.status !== 'paid') continue;
      for (const item of o.items as { kind: string; id: string }[]) if (item.kind === 'course') expect(enrolled.has(`${String(o.student_id)} ${item.id}`), `${String(o.id)} ${item.id}`).toBe(true);
    }
  });

  it('order totals equal the sum of their items minus the coupon discount', async () => {
    const coupons = new Map((await records(store, 'coupons')).map((c) => [c.code, c]));
    const prices = new Map<string, number>();
    for (const table of ['courses', 'membership_plans', 'digital_products']) for (const r of await records(store, table)) prices.set(String(r.id), Number(r.price_cents));
    const orders = await records(store, 'orders');
    let discounted = 0;
    for (const o of orders) {
      const items = o.items as { id: string; price_cents: number; name: string }[];
      expect(items.length, String(o.id)).toBeGreaterThan(0);
      for (const item of items) expect(item.price_cents, `${String(o.id)} ${item.name}`).toBe(prices.get(item.id));
      const subtotal = items.reduce((sum, i) => sum + i.price_cents, 0);
      let discount = 0;
      if (o.coupon_code !== null) {
        const coupon = coupons.get(o.coupon_code);
        expect(coupon, String(o.coupon_code)).toBeDefined();
        discount = coupon!.percent_off !== null ? Math.round((subtotal * Number(coupon!.percent_off)) / 100) : Math.min(Number(coupon!.amount_off_cents), subtotal);
        if (coupon!.valid_until !== null) expect(Date.parse(String(o.paid_at))).toBeLessThanOrEqual(Date.parse(String(coupon!.valid_until)));
        discounted++;
      }
      expect(o.total_cents, String(o.id)).toBe(subtotal - discount);
      expect(o.currency).toBe((await store.settings.get('school'))?.currency);
    }
    expect(discounted).toBeGreaterThan(0);
    for (const c of coupons.values()) expect(c.times_redeemed, String(c.code)).toBe(orders.filter((o) => o.coupon_code === c.code).length);
  });

  it('every record stays within the limits the API enforces on input', () => {
    const rows = buildDemo(now);
    for (const area of AREA_LIST) {
      for (const row of rows[area.name as keyof typeof rows] ?? []) {
        const where = `${area.name} ${String(row.id)}`;
        expect(String(row.id).length, where).toBeLessThanOrEqual(100);
        expect(String(row.id).startsWith(`${area.idPrefix}_`), where).toBe(true);
        for (const [name, f] of Object.entries(area.fields)) {
          const v = row[name];
          if (v === null || v === undefined) {
            expect(f.required ?? false, `${where} ${name}`).toBe(false);
            continue;
          }
          if (f.type === 'string') expect(String(v).length, `${where} ${name}`).toBeLessThanOrEqual(f.max ?? 200);
          if (f.type === 'text') expect(String(v).length, `${where} ${name}`).toBeLessThanOrEqual(f.max ?? 100_000);
          if (f.type === 'enum') expect(f.enum, `${where} ${name}`).toContain(v);
          if (f.type === 'integer') expect(Number(v), `${where} ${name}`).toBeGreaterThanOrEqual(f.min ?? 0);
          if (f.type === 'integer') expect(Number(v), `${where} ${name}`).toBeLessThanOrEqual(f.max ?? 1_000_000_000);
          if (f.type === 'email') expect(String(v), `${where} ${name}`).toMatch(/^[^\s@]+@[^\s@]+\.[^\s@]+$/);
          if (f.type === 'url') expect(String(v), `${where} ${name}`).toMatch(/^https?:\/\//);
        }
      }
    }
    expect(buildDemo(now)).toEqual(rows);
  });

  it('clear and seed again gives the same counts, and keeps users and clients', async () => {
    const before = await countAll(store);
    const user = { id: `u-${kind}-demo`, email: `keep-${kind}@school.test`, name: 'Kept', role: 'owner' as const, passwordHash: 'x', createdAt: now, updatedAt: now };
    await store.users.create(user);
    await store.clients.create({
      id: `lyc_client_demo_${kind}`,
      secretHash: null,
      metadata: {
        client_name: 'Kept app',
        redirect_uris: ['http://127.0.0.1/cb'],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        application_type: 'native',
      },
      createdAt: now,
    });

    await clearPlatform(store);
    const cleared = await countAll(store);
    for (const area of AREA_LIST) expect(cleared[area.name], area.name).toBe(0);
    expect(await store.users.findById(user.id)).toMatchObject({ email: user.email });
    expect(await store.clients.find(`lyc_client_demo_${kind}`)).toBeDefined();

    await seedDemo(store, now + DAY);
    expect(await countAll(store)).toEqual(before);
    await clearPlatform(store);
    await seedDemo(store);
    expect(await countAll(store)).toEqual(before);
    expect(await store.users.findById(user.id)).toBeDefined();
    expect(await store.clients.find(`lyc_client_demo_${kind}`)).toBeDefined();
  });
});

describe.each(STORE_KINDS)('the demo school through a running server on %s', (kind) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(kind);
    await seedDemo(server.deps.store, server.deps.now());
  });

  afterAll(async () => {
    await server?.close();
  });

  it('GET /api/v1/courses anonymously lists only the published courses', async () => {
    const res = await fetch(`${server.issuer}/api/v1/courses?limit=100`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: Record<string, unknown>[]; next_cursor?: string };
    expect(body.next_cursor).toBeUndefined();
    expect(body.data.every((c) => c.status === 'published')).toBe(true);
    expect(body.data.map((c) => c.slug).sort()).toEqual(PUBLISHED_COURSES);
  });

  it('anonymous callers see the upcoming published events and the published pages', async () => {
    const events = (await (await fetch(`${server.issuer}/api/v1/events?limit=100`)).json()) as { data: Record<string, unknown>[] };
    expect(events.data).toHaveLength(4);
    const pages = (await (await fetch(`${server.issuer}/api/v1/pages?limit=100`)).json()) as { data: Record<string, unknown>[] };
    expect(pages.data.map((p) => p.slug).sort()).toEqual(['about', 'faq', 'privacy', 'terms']);
  });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function lyceum(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['bin/lyceum.js', ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'silent', ...env }, timeout: 30_000, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        const e = error as (Error & { code?: unknown }) | null;
        resolve({ code: e ? (typeof e.code === 'number' ? e.code : null) : 0, stdout: String(stdout), stderr: String(stderr) });
      },
    );
  });
}

describe('lyceum seed', () => {
  it('seed --demo fills a fresh SQLite file and prints a one-line summary; again, the same counts', async () => {
    const url = await freshDatabaseUrl('sqlite');
    const first = await lyceum(['seed', '--demo'], { DATABASE_URL: url });
    expect(first, JSON.stringify(first)).toMatchObject({ code: 0, stderr: '' });
    const lines = first.stdout.split('\n').filter((l) => l.trim() !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/demo school.*12 courses.*30 students.*40 orders/);

    const store = openStore(databaseConfig(url));
    try {
      const counts = await countAll(store);
      expect(counts.courses).toBe(12);
      const again = await lyceum(['seed', '--demo'], { DATABASE_URL: url });
      expect(again, JSON.stringify(again)).toMatchObject({ code: 0, stderr: '', stdout: first.stdout });
      expect(await countAll(store)).toEqual(counts);
    } finally {
      await store.close();
    }
  });

  it('seed without --demo is a usage error: exit 2, one line on stderr', async () => {
    const cases = [['seed'], ['seed', 'demo'], ['seed', '--demo', 'extra'], ['seed', '--nope']];
    const runs = await Promise.all(cases.map(async (args) => lyceum(args, { DATABASE_URL: await freshDatabaseUrl('sqlite') })));
    for (const r of runs) {
      expect(r.code, JSON.stringify(r)).toBe(2);
      const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
      expect(lines, JSON.stringify(r)).toHaveLength(1);
      expect(lines[0]).toMatch(/^lyceum: \S/);
      expect(r.stdout).toBe('');
    }
  });

  it('seed --scale N grows the demo school to N students with their history, the same rows for the same N', async () => {
    const [a, b] = [await freshDatabaseUrl('sqlite'), await freshDatabaseUrl('sqlite')];
    const runs = await Promise.all([a, b].map((url) => lyceum(['seed', '--scale', '600'], { DATABASE_URL: url })));
    for (const r of runs) {
      expect(r, JSON.stringify(r)).toMatchObject({ code: 0 });
      expect(r.stdout.trim().split('\n')).toHaveLength(1);
      expect(r.stdout).toMatch(/at scale: 600 students, 12 courses, \d+ enrollments, \d+ lesson completions, \d+ orders in [\d.]+ s/);
    }
    const idsOf = async (url: string) => {
      const store = openStore(databaseConfig(url));
      try {
        const ids: Record<string, unknown[]> = {};
        for (const table of ['students', 'enrollments', 'orders']) ids[table] = (await store.records.select(table, ['id'], [])).map((r) => r.id).sort();
        ids.completions = (await store.records.select('lesson_completions', ['enrollment_id', 'lesson_id'], [])).map((r) => `${String(r.enrollment_id)}/${String(r.lesson_id)}`).sort();
        return ids;
      } finally {
        await store.close();
      }
    };
    const [first, second] = [await idsOf(a), await idsOf(b)];
    expect(first.students).toHaveLength(600);
    expect(first.enrollments!.length).toBeGreaterThan(600);
    expect(first.completions!.length).toBeGreaterThan(first.enrollments!.length);
    expect(second).toEqual(first);
  });

  it('analytics rebuild counts the figures again after rows were written around the store', async () => {
    const url = await freshDatabaseUrl('sqlite');
    expect(await lyceum(['seed', '--scale', '300'], { DATABASE_URL: url })).toMatchObject({ code: 0 });
    const store = openStore(databaseConfig(url));
    try {
      const report = () =>
        new AnalyticsService({ store, now: () => Date.now() } as never).report({
          from: new Date(Date.now() - 4.9 * 365 * DAY).toISOString().slice(0, 10),
          to: new Date().toISOString().slice(0, 10),
          interval: 'week',
        });
      const before = await report();
      expect(before.totals.enrollments).toBeGreaterThan(300);
      // A restore of an older backup, or an import, leaves the counters behind the records.
      const raw = new SQLite(url);
      raw.prepare('delete from analytics_counters').run();
      raw.close();
      expect((await report()).totals.enrollments).toBe(0);
      const r = await lyceum(['analytics', 'rebuild'], { DATABASE_URL: url });
      expect(r, JSON.stringify(r)).toMatchObject({ code: 0, stderr: '' });
      expect(r.stdout).toMatch(/^analytics counted again from \d+ records in [\d.]+ s\n$/);
      expect(await report()).toEqual(before);
    } finally {
      await store.close();
    }
  });

  // Seven CLI starts one after another: on a busy host each can take several seconds.
  it('seed --scale without a number from 30 to 1,000,000, or beside --demo, is a usage error', { timeout: 120_000 }, async () => {
    const cases = [
      ['seed', '--scale'],
      ['seed', '--scale', '29'],
      ['seed', '--scale', '1000001'],
      ['seed', '--scale', '1e3'],
      ['seed', '--scale', '100', '--demo'],
      ['analytics'],
      ['analytics', 'rebuild', 'now'],
    ];
    for (const args of cases) {
      const r = await lyceum(args, { DATABASE_URL: await freshDatabaseUrl('sqlite') });
      expect(r.code, JSON.stringify(r)).toBe(2);
      expect(r.stderr.trim().split('\n'), JSON.stringify(r)).toHaveLength(1);
    }
  });

  it('lyceum help mentions seed --demo', async () => {
    expect((await lyceum(['help'], {})).stdout).toMatch(/seed --demo/);
  });

  describe('while a server runs on the same SQLite file', () => {
    let server: TestServer;
    let url: string;

    beforeAll(async () => {
      url = await freshDatabaseUrl('sqlite');
      server = await startTestServer('sqlite', { DATABASE_URL: url });
    });

    afterAll(async () => {
      await server?.close();
    });

    it('the server serves the demo the CLI wrote, and its users survive a re-seed', async () => {
      const owner = await server.addUser('owner');
      const before = (await (await fetch(`${server.issuer}/api/v1/courses`)).json()) as { data: unknown[] };
      expect(before.data).toHaveLength(0);
      for (let i = 0; i < 2; i++) {
        const r = await lyceum(['seed', '--demo'], { DATABASE_URL: url });
        expect(r, JSON.stringify(r)).toMatchObject({ code: 0, stderr: '' });
      }
      const after = (await (await fetch(`${server.issuer}/api/v1/courses?limit=100`)).json()) as { data: Record<string, unknown>[] };
      expect(after.data.map((c) => c.slug).sort()).toEqual(PUBLISHED_COURSES);
      expect(await server.deps.store.users.findByEmail(owner.email)).toBeDefined();
    });
  });
});

/** `lyceum serve` on a SQLite file; resolves with its output once it listens. */
async function serve(port: number, url: string): Promise<{ process: ServeProcess; stdout: string }> {
  const p = await spawnServe({ LOG_LEVEL: 'silent', PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: url }, 25_000);
  return { process: p, stdout: p.stdout() };
}

describe('first start', () => {
  const children: ServeProcess[] = [];

  afterAll(async () => {
    for (const c of children) await c.stop();
  });

  // Two `lyceum serve` processes, each loading the whole server through tsx: 19 s in a CI run,
  // past 30 s once on a loaded machine. Each start still has spawnServe's own bound.
  it('lyceum serve on an empty database seeds the demo before listening, says so in one line, and only the first time', { timeout: 120_000 }, async () => {
    const port = await freePort();
    const url = await freshDatabaseUrl('sqlite');
    const first = await serve(port, url);
    children.push(first.process);
    const demoLines = first.stdout.split('\n').filter((l) => /demo school/.test(l));
    expect(demoLines, first.stdout).toHaveLength(1);
    expect(first.stdout.indexOf(demoLines[0]!)).toBeLessThan(first.stdout.indexOf('Lyceum is serving'));

    const res = await fetch(`http://127.0.0.1:${port}/api/v1/courses?limit=100`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: Record<string, unknown>[] };
    expect(body.data.map((c) => c.slug).sort()).toEqual(PUBLISHED_COURSES);
    await first.process.stop();

    const second = await serve(port, url);
    children.push(second.process);
    expect(second.stdout).not.toMatch(/demo school|First start/);
    const again = (await (await fetch(`http://127.0.0.1:${port}/api/v1/courses?limit=100`)).json()) as { data: unknown[] };
    expect(again.data).toHaveLength(PUBLISHED_COURSES.length);
    await second.process.stop();
  });
});
