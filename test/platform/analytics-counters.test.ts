/**
 * The analytics counters over real HTTP on each store: after writes of every
 * kind that moves a figure (enrollments made and removed with their
 * completions, lessons done and undone, lessons deleted, orders paid,
 * refunded and moved to another currency), the report equals the figures
 * counted from the rows themselves, and a rebuild from scratch changes
 * nothing. On PostgreSQL, two instances writing at once lose no count.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_KINDS } from '../helpers/stores.ts';
import { api, marker, startRecordsServer, type RecordsServer } from '../helpers/records.ts';
import { startTestServer } from '../helpers/server.ts';
import type { Row } from '../../src/store/types.ts';
import { SchoolSummaryService } from '../../src/platform/school-summary.ts';

type Report = {
  enrollments: { count: number }[];
  revenue: { total_cents: number }[];
  active_students: { count: number }[];
  lessons_completed: { count: number }[];
  enrollments_completed: { count: number }[];
  totals: Record<string, number | null>;
};

/** The figures of one range, counted from the stored rows the way the report describes them. */
async function fromRows(s: RecordsServer, start: number, end: number, currency: string) {
  const records = s.server.deps.store.records;
  const within = (v: unknown) => v !== null && v !== undefined && Number(v) >= start && Number(v) < end;
  const enrollments = (await records.select('enrollments', ['student_id', 'created_at', 'completed_at', 'progress_percent'], [])).filter((r) => within(r.created_at));
  const completed = (await records.select('enrollments', ['completed_at'], [])).filter((r) => within(r.completed_at));
  const lessons = (await records.select('lesson_completions', ['completed_at'], [])).filter((r) => within(r.completed_at));
  const orders = (await records.select('orders', ['student_id', 'status', 'paid_at', 'total_cents', 'currency'], [])).filter((r) => r.status === 'paid' && within(r.paid_at));
  const inCurrency = (r: Row) => !r.currency || String(r.currency).toUpperCase() === currency;
  const sum = (rows: Row[], column: string) => rows.reduce((n, r) => n + Number(r[column] ?? 0), 0);
  return {
    enrollments: enrollments.length,
    revenue_cents: sum(orders.filter(inCurrency), 'total_cents'),
    active: new Set([...enrollments, ...orders].map((r) => r.student_id).filter((id) => id !== null && id !== undefined)).size,
    lessons_completed: lessons.length,
    enrollments_completed: completed.length,
    average_progress_percent: enrollments.length ? Math.round(sum(enrollments, 'progress_percent') / enrollments.length) : null,
  };
}

const figures = (r: Report) => ({
  enrollments: r.totals.enrollments,
  revenue_cents: r.totals.revenue_cents,
  active: r.active_students[0]!.count,
  lessons_completed: r.totals.lessons_completed,
  enrollments_completed: r.totals.enrollments_completed,
  average_progress_percent: r.totals.average_progress_percent,
});

describe.each(STORE_KINDS)('analytics counters on %s', (kind) => {
  let s: RecordsServer;
  let today: string;
  let dayStart: number;
  let monthStart: string;
  let monthEnd: string;

  beforeAll(async () => {
    s = await startRecordsServer(kind);
    const now = s.server.deps.now();
    today = new Date(now).toISOString().slice(0, 10);
    dayStart = Date.parse(today);
    const d = new Date(now);
    monthStart = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)).toISOString().slice(0, 10);
    monthEnd = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).toISOString().slice(0, 10);
    await s.owner('PATCH', '/school', { currency: 'USD' });
  });

  afterAll(async () => {
    await s?.server.close();
  });

  const report = async (query: string) => {
    const res = await s.owner('GET', `/analytics?${query}`);
    expect(res.status, res.text).toBe(200);
    return res.json as unknown as Report;
  };

  /** A record created over HTTP by the owner; its id. */
  const created = async (path: string, body: unknown) => {
    const res = await s.owner('POST', path, body);
    expect(res.status, res.text).toBe(201);
    return String(res.json.id);
  };

  /** An order row as the platform stores one (orders have no write route): paid now, 1000 cents in USD unless `extra` says otherwise; its id. */
  const insertOrder = async (extra: Row) => {
    const now = s.server.deps.now();
    const id = `ord_${marker()}`;
    await s.server.deps.store.records.insert('orders', { id, created_at: now, updated_at: now, items: '[]', status: 'paid', paid_at: now, total_cents: 1000, currency: 'USD', ...extra });
    return id;
  };

  it('matches the rows after every kind of change, for a day and for a whole month, and a rebuild changes nothing', async () => {
    const course = await created('/courses', { title: 'Counted', status: 'published' });
    const section = await created('/curriculum/sections', { course_id: course, title: 'S' });
    const lessons = [
      await created('/curriculum/lessons', { section_id: section, title: 'L1' }),
      await created('/curriculum/lessons', { section_id: section, title: 'L2' }),
      await created('/curriculum/lessons', { section_id: section, title: 'L3' }),
    ];
    const students: string[] = [];
    for (let i = 0; i < 4; i++) students.push(await created('/students', { name: `S${i}`, email: `${marker()}@counted.test` }));
    const enrollments: string[] = [];
    for (const student of students) enrollments.push(await created('/enrollments', { student_id: student, course_id: course }));
    const done = (e: number, l: number, method = 'PUT') => s.owner(method, `/enrollments/${enrollments[e]!}/lessons/${lessons[l]!}/completion`);
    for (const l of [0, 1, 2]) await done(0, l);
    await done(1, 0);
    await done(1, 1);
    await done(1, 1, 'DELETE');
    await done(2, 0);
    // A lesson deleted takes its completions with it; so does an enrollment, and a student their enrollments.
    expect((await s.owner('DELETE', `/curriculum/lessons/${lessons[2]!}`)).status).toBe(204);
    expect((await s.owner('DELETE', `/enrollments/${enrollments[2]!}`)).status).toBe(204);
    expect((await s.owner('DELETE', `/students/${students[3]!}`)).status).toBe(204);

    const orders = s.server.deps.store.records;
    const now = s.server.deps.now();
    await insertOrder({ student_id: students[0]! });
    await insertOrder({ student_id: students[1]!, currency: null, total_cents: 250 });
    await insertOrder({ student_id: students[2]!, currency: 'EUR', total_cents: 700 });
    const pending = await insertOrder({ student_id: students[2]!, status: 'pending', paid_at: null, total_cents: 300 });
    await orders.update('orders', pending, { status: 'paid', paid_at: now });
    const refunded = await insertOrder({ student_id: students[0]!, total_cents: 5000 });
    await orders.update('orders', refunded, { status: 'refunded' });
    const moved = await insertOrder({ student_id: students[1]!, total_cents: 900 });
    await orders.update('orders', moved, { currency: 'gbp' });
    await orders.delete('orders', `ord_never_${marker()}`);

    // A course moved to draft and back, another left a draft: the published ones are counted as they are.
    const draft = await created('/courses', { title: 'Draft', status: 'draft' });
    expect((await s.owner('PATCH', `/courses/${course}`, { status: 'draft' })).status).toBe(200);
    expect((await s.owner('PATCH', `/courses/${course}`, { status: 'published' })).status).toBe(200);
    expect(draft).toMatch(/^crs_/);

    const day = await report(`from=${today}&to=${today}`);
    const records = s.server.deps.store.records;
    expect(day.totals).toMatchObject({ students: 3, courses_published: 1 });
    expect(day.totals.students).toBe(await records.count('students', []));
    const month = await report(`from=${monthStart}&to=${monthEnd}`);
    const expected = await fromRows(s, dayStart, dayStart + 86_400_000, 'USD');
    // Not a vacuous match: every figure moved.
    expect(expected).toEqual({ enrollments: 2, revenue_cents: 1550, active: 3, lessons_completed: 3, enrollments_completed: 1, average_progress_percent: 67 });
    expect(figures(day)).toEqual(expected);
    const monthRows = await fromRows(s, Date.parse(monthStart), Date.parse(monthEnd) + 86_400_000, 'USD');
    expect(figures(month)).toEqual(monthRows);

    // Two enrollments, three completions, six orders, three students and two courses are stored.
    expect(await s.server.deps.store.analytics.rebuild()).toBe(2 + 3 + 6 + 3 + 2);
    expect(await report(`from=${today}&to=${today}`)).toEqual(day);
    expect(await report(`from=${monthStart}&to=${monthEnd}`)).toEqual(month);
  });

  it('counts the students active in part of a period, whether or not the rest of the period saw activity', async () => {
    const records = s.server.deps.store.records;
    const at = (iso: string) => Date.parse(iso);
    const student = async () => String((await s.owner('POST', '/students', { name: 'P', email: `${marker()}@part.test` })).json.id);
    const course = String((await s.owner('POST', '/courses', { title: 'Parts', status: 'published' })).json.id);
    const [early, late] = [await student(), await student()];
    const enroll = (id: string, who: string, when: string) =>
      records.insert('enrollments', { id: `enr_${id}_${marker()}`, student_id: who, course_id: course, progress_percent: 0, created_at: at(when), updated_at: at(when) });
    await enroll('early', early, '2023-05-03T10:00:00Z');
    await enroll('late', late, '2023-05-20T10:00:00Z');
    const active = async (query: string) => (await report(query)).active_students.map((p) => p.count);
    expect(await active('from=2023-05-01&to=2023-05-31')).toEqual([2]);
    // The days left out hold the other student's activity: only the student of the days kept counts.
    expect(await active('from=2023-05-10&to=2023-05-31')).toEqual([1]);
    expect(await active('from=2023-05-01&to=2023-05-15')).toEqual([1]);
    expect(await active('from=2023-05-04&to=2023-05-19')).toEqual([0]);
    // The days left out saw nothing: the month's own count answers.
    expect(await active('from=2023-05-03&to=2023-05-20')).toEqual([2]);
    expect(await active('from=2023-05-02&to=2023-05-25&interval=week')).toEqual([1, 0, 1, 0]);
    // ISO weeks run Monday to Sunday: activity on the Monday before a range that starts on Tuesday,
    // or on the Sunday after one that ends on Saturday, is outside it.
    await enroll('monday', await student(), '2023-07-03T10:00:00Z');
    await enroll('sunday', await student(), '2023-07-16T10:00:00Z');
    expect(await active('from=2023-07-04&to=2023-07-15&interval=week')).toEqual([0, 0]);
    expect(await active('from=2023-07-03&to=2023-07-16&interval=week')).toEqual([1, 1]);
  });

  it('counts rows as the report describes them: subscriptions by status, paid orders by paid_at, activity only of a student', async () => {
    const records = s.server.deps.store.records;
    const now = s.server.deps.now();
    const day = () => report(`from=${today}&to=${today}`);
    const before = await day();
    const student = await created('/students', { name: 'Subscriber', email: `${marker()}@rows.test` });
    const plan = await created('/membership-plans', { name: `Plan ${marker()}` });

    // Only active subscriptions are active_subscriptions, whatever status they had or move to.
    const subscribe = (status: string) => created('/subscriptions', { student_id: student, plan_id: plan, status });
    const [first, second] = [await subscribe('active'), await subscribe('past_due'), await subscribe('cancelled')];
    const activeSubscriptions = async () => (await day()).totals.active_subscriptions;
    expect(await activeSubscriptions()).toBe(before.totals.active_subscriptions! + 1);
    expect((await s.owner('PATCH', `/subscriptions/${second!}`, { status: 'active' })).status).toBe(200);
    expect((await s.owner('PATCH', `/subscriptions/${first!}`, { status: 'cancelled' })).status).toBe(200);
    expect(await activeSubscriptions()).toBe(before.totals.active_subscriptions! + 1);
    expect((await s.owner('DELETE', `/subscriptions/${second!}`)).status).toBe(204);
    expect(await activeSubscriptions()).toBe(before.totals.active_subscriptions);
    expect(await activeSubscriptions()).toBe((await records.select('subscriptions', ['status'], [])).filter((r) => r.status === 'active').length);

    // A paid order with no time of payment cannot be placed in a period: it counts once it has one.
    const undated = await insertOrder({ student_id: student, paid_at: null, total_cents: 4000 });
    expect(figures(await day())).toEqual(figures(before));
    await records.update('orders', undated, { paid_at: now });
    const dated = figures(await day());
    expect(dated).toMatchObject({ revenue_cents: before.totals.revenue_cents! + 4000, active: before.active_students[0]!.count + 1 });

    // Without a student (a guest's order, an enrollment written outside the API) a row counts, but no one is active.
    await insertOrder({ student_id: null, total_cents: 300 });
    await records.insert('enrollments', { id: `enr_rows_${marker()}`, student_id: null, course_id: null, progress_percent: 0, created_at: now, updated_at: now });
    const after = figures(await day());
    expect(after).toMatchObject({ revenue_cents: dated.revenue_cents! + 300, enrollments: dated.enrollments! + 1, active: dated.active });
    expect(after).toEqual(await fromRows(s, dayStart, dayStart + 86_400_000, 'USD'));
  });

  it('keeps the school summary in step: enrollments of all time and the month’s paid orders', async () => {
    const summarize = () => new SchoolSummaryService(s.server.deps).summary();
    const records = s.server.deps.store.records;
    const now = s.server.deps.now();
    const before = await summarize();
    // Its own orders, so that the summary moves by what this test writes: one paid in the school's
    // currency, one in another, one pending.
    await insertOrder({ total_cents: 1234 });
    await insertOrder({ currency: 'EUR', total_cents: 99 });
    await insertOrder({ status: 'pending', paid_at: null, total_cents: 1234 });
    const after = await summarize();
    expect(after.orders_paid_this_month).toBe(before.orders_paid_this_month + 2);
    expect(after.revenue_this_month_cents).toBe(before.revenue_this_month_cents + 1234);

    const d = new Date(now);
    const paid = (await records.select('orders', ['status', 'paid_at', 'total_cents', 'currency'], [])).filter(
      (r) => r.status === 'paid' && Number(r.paid_at) >= Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1),
    );
    expect(after).toMatchObject({
      enrollments: await records.count('enrollments', []),
      orders_paid_this_month: paid.length,
      revenue_this_month_cents: paid.filter((r) => !r.currency || r.currency === 'USD').reduce((n, r) => n + Number(r.total_cents), 0),
    });
  });

  it.runIf(kind === 'postgres')('two instances writing at once on one database lose no count', async () => {
    const b = await startTestServer(kind, { DATABASE_URL: s.server.databaseUrl });
    try {
      const before = figures(await report(`from=${today}&to=${today}`));
      const course = String((await s.owner('POST', '/courses', { title: 'Busy', status: 'published' })).json.id);
      const token = await s.token('students:write');
      const enrollOn = async (issuer: string, i: number) => {
        const student = await api(issuer, 'POST', '/students', { token, body: { name: `P${i}`, email: `${marker()}@busy.test` } });
        const enrollment = await api(issuer, 'POST', '/enrollments', { token, body: { student_id: student.json.id, course_id: course } });
        expect(enrollment.status, enrollment.text).toBe(201);
      };
      await Promise.all(Array.from({ length: 24 }, (_, i) => enrollOn(i % 2 ? b.issuer : s.server.issuer, i)));
      const after = figures(await report(`from=${today}&to=${today}`));
      expect(after.enrollments).toBe(before.enrollments! + 24);
      expect(after.active).toBe(before.active + 24);
      expect(after).toEqual(await fromRows(s, dayStart, dayStart + 86_400_000, 'USD'));
    } finally {
      await b.close();
    }
  });
});
