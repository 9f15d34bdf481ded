import type { Row, Store } from '../store/types.ts';
import { AREA_LIST, AREAS, type AreaDef, type AreaName } from '../platform/areas.ts';
import { recordToRow, type Fields } from '../platform/fields.ts';
import { COURSES, PLANS, PRODUCTS } from './catalog.ts';
import { EVENTS, FORMS, PAGES, POSTS } from './content.ts';
import { COMMENTS, COUPONS, ORDERS, STUDENTS, SUBSCRIPTIONS } from './people.ts';
import { APPEARANCE, LECTURERS, SCHOOL, TEAM } from './school.ts';
import { demoCompletions } from './progress.ts';
import type { DemoCoupon, DemoLesson, ItemRef } from './types.ts';

const DAY = 24 * 3600 * 1000;
const HOUR = 3600 * 1000;

/** Rows per platform table, ready for store.records.insert, and the lesson completions of the enrollments. */
export type DemoRows = Record<AreaName, Row[]> & { lesson_completions: Row[] };

/** How many records of each area the demo holds (or a seed wrote). */
export type DemoCounts = Record<string, number>;

/** Deterministic id of a demo record: the area's prefix, then "demo", then the record's key. */
export function demoId(area: AreaDef, key: string): string {
  return `${area.idPrefix}_demo_${key}`;
}

/** The discount a coupon gives on a subtotal, in cents: percent rounded to the cent, or a fixed amount (never more than the subtotal). */
export function discountCents(coupon: Pick<DemoCoupon, 'percent_off' | 'amount_off_cents'>, subtotal: number): number {
  if (coupon.percent_off) return Math.round((subtotal * coupon.percent_off) / 100);
  return Math.min(coupon.amount_off_cents ?? 0, subtotal);
}

/** The fields with readOnly lifted: the seed sets server-computed columns (a lesson's course, a coupon's redemptions) itself. */
const writable = new Map<string, Fields>();
function fieldsOf(area: AreaDef): Fields {
  let fields = writable.get(area.name);
  if (!fields) {
    fields = Object.fromEntries(Object.entries(area.fields).map(([n, f]) => [n, { ...f, readOnly: false }]));
    writable.set(area.name, fields);
  }
  return fields;
}

/** One stored row with this id: the area's defaults, then `values` (API shapes: ISO times, arrays, booleans), then id and times. */
export function storedRow(area: AreaDef, id: string, values: Record<string, unknown>, createdAt: number, updatedAt = createdAt): Row {
  for (const name of Object.keys(values)) {
    if (!(name in area.fields)) throw new Error(`demo data: ${area.name} has no field ${name}`);
  }
  const defaults: Record<string, unknown> = {};
  for (const [name, f] of Object.entries(area.fields)) if (f.default !== undefined) defaults[name] = f.default;
  return { ...recordToRow(fieldsOf(area), { ...defaults, ...values }), id, created_at: createdAt, updated_at: Math.max(createdAt, updatedAt) };
}

/** A demo record's stored row: its id is made from its key (demoId). */
const makeRow = (area: AreaDef, key: string, values: Record<string, unknown>, createdAt: number, updatedAt = createdAt): Row => storedRow(area, demoId(area, key), values, createdAt, updatedAt);

const iso = (ms: number) => new Date(ms).toISOString();

function lessonContent(lesson: DemoLesson, section: string, course: string): string {
  const [title, kind, minutes, , content] = lesson;
  if (content) return content;
  switch (kind) {
    case 'video':
      return `## ${title}\n\nA ${minutes}-minute video from *${section}*. Watch it once, then follow along in your own editor or notebook.\n\n- Pause whenever you want to try something yourself.\n- The transcript and slides are under **Resources**.\n\n> Stuck? Ask in the ${course} discussion: a lecturer answers within two working days.`;
    case 'text':
      return `## ${title}\n\nThis reading takes about ${minutes} minutes and builds on the previous lessons of *${section}*.\n\n### Key points\n\n1. Read the whole lesson once without taking notes.\n2. Go through the examples again and run each one yourself.\n3. Write down one question you still have and bring it to the discussion.`;
    case 'quiz':
      return `## ${title}\n\nCheck what you learned in *${section}*. The quiz takes about ${minutes} minutes.\n\n- You can retake it as often as you like; your best score counts.\n- Every answer comes with a short explanation.\n- Score 70% or more to mark the section as complete.`;
    case 'assignment':
      return `## ${title}\n\nTime to put *${section}* into practice. Plan about ${minutes} minutes.\n\n### What to hand in\n\n- Your work (a file, a link or a few screenshots)\n- Two or three sentences on what was hardest\n\nA lecturer of ${course} reviews every submission and replies with written feedback.`;
  }
}

/** The whole demo school as rows, dated relative to `now`. Pure: same `now`, same rows. */
export function buildDemo(now: number): DemoRows {
  const ago = (days: number, salt = 0) => now - days * DAY - ((salt * 7919) % 540) * 60_000;
  const rows = Object.fromEntries([...Object.keys(AREAS), 'lesson_completions'].map((name) => [name, [] as Row[]])) as DemoRows;
  const idOf = (area: AreaName, key: string) => demoId(AREAS[area], key);

  for (const [i, l] of LECTURERS.entries()) {
    const { key, daysAgo, ...values } = l;
    rows.lecturers.push(makeRow(AREAS.lecturers, key, values, ago(daysAgo, i)));
  }
  for (const [i, m] of TEAM.entries()) {
    const { daysAgo, ...values } = m;
    rows.members.push(makeRow(AREAS.members, m.email.split('@')[0]!.replace(/\./g, '-'), values, ago(daysAgo, i)));
  }

  const courses = new Map(COURSES.map((c) => [c.key, c]));
  for (const [ci, c] of COURSES.entries()) {
    const { key, daysAgo, sections, lecturers, ...values } = c;
    const created = ago(daysAgo, ci);
    for (const l of lecturers) if (!LECTURERS.some((x) => x.key === l)) throw new Error(`demo data: course ${key} names an unknown lecturer ${l}`);
    rows.courses.push(makeRow(AREAS.courses, key, { ...values, lecturer_ids: lecturers.map((l) => idOf('lecturers', l)) }, created, ago(Math.floor(daysAgo / 3), ci)));
    for (const [si, s] of sections.entries()) {
      const sectionKey = `${key}-${si + 1}`;
      rows.sections.push(makeRow(AREAS.sections, sectionKey, { course_id: idOf('courses', key), title: s.title, position: si }, created + (si + 1) * HOUR));
      for (const [li, lesson] of s.lessons.entries()) {
        const [title, kind, minutes, preview] = lesson;
        rows.lessons.push(
          makeRow(
            AREAS.lessons,
            `${sectionKey}-${li + 1}`,
            {
              section_id: idOf('sections', sectionKey),
              course_id: idOf('courses', key),
              title,
              kind,
              duration_minutes: minutes,
              position: li,
              free_preview: preview === true,
              content: lessonContent(lesson, s.title, c.title),
            },
            created + (si + 1) * HOUR + (li + 1) * 60_000,
          ),
        );
      }
    }
  }

  for (const [i, p] of PLANS.entries()) {
    const { key, daysAgo, ...values } = p;
    rows.membership_plans.push(makeRow(AREAS.membership_plans, key, { ...values, status: 'published' }, ago(daysAgo, i)));
  }
  for (const [i, p] of PRODUCTS.entries()) {
    const { key, daysAgo, ...values } = p;
    rows.digital_products.push(makeRow(AREAS.digital_products, key, values, ago(daysAgo, i)));
  }

  // Students and their enrolments. An enrolment starts with the first order of
  // the course, else the day after the student joined (never before the course existed).
  const students = new Map(STUDENTS.map((s) => [s.key, s]));
  for (const [i, s] of STUDENTS.entries()) {
    const { key, daysAgo, enrollments, ...values } = s;
    const joined = Math.min(ago(daysAgo, i), ...ORDERS.flatMap((o, oi) => (o.student === key ? [ago(o.daysAgo, oi) - HOUR] : [])));
    rows.students.push(makeRow(AREAS.students, key, values, joined));
    for (const [courseKey, progress] of Object.entries(enrollments)) {
      const course = courses.get(courseKey);
      if (!course) throw new Error(`demo data: student ${key} is enrolled in an unknown course ${courseKey}`);
      const firstPaid = ORDERS.map((o, oi) => ({ o, oi })).find(({ o }) => o.student === key && o.status === 'paid' && o.items.includes(`course:${courseKey}`));
      const courseCreated = ago(course.daysAgo, COURSES.indexOf(course));
      const start = firstPaid ? ago(firstPaid.o.daysAgo, firstPaid.oi) + 5 * 60_000 : Math.max(joined + DAY, courseCreated + DAY);
      const enrolled = Math.floor((now - start) / DAY);
      const completed = progress === 100 ? start + Math.min(60, Math.ceil(enrolled / 2)) * DAY : undefined;
      const lastActivity = completed ?? (progress > 0 ? Math.max(start, now - ((i % 9) + 1) * DAY) : start);
      rows.enrollments.push(
        makeRow(
          AREAS.enrollments,
          `${key}-${courseKey}`,
          { student_id: idOf('students', key), course_id: idOf('courses', courseKey), progress_percent: progress, completed_at: completed === undefined ? null : iso(completed) },
          start,
          lastActivity,
        ),
      );
    }
  }

  const coupons = new Map(COUPONS.map((c) => [c.code, c]));
  for (const [i, c] of COUPONS.entries()) {
    const { daysAgo, validInDays, ...values } = c;
    rows.coupons.push(
      makeRow(
        AREAS.coupons,
        c.code.toLowerCase(),
        {
          ...values,
          percent_off: c.percent_off ?? null,
          amount_off_cents: c.amount_off_cents ?? null,
          valid_until: validInDays === undefined ? null : iso(now + validInDays * DAY),
          times_redeemed: ORDERS.filter((o) => o.coupon === c.code).length,
        },
        ago(daysAgo, i),
      ),
    );
  }

  const item = (ref: ItemRef) => {
    const [kind, key] = ref.split(':') as ['course' | 'plan' | 'product', string];
    if (kind === 'course') {
      const c = courses.get(key);
      if (!c) throw new Error(`demo data: an order names an unknown course ${key}`);
      return { kind: 'course', id: idOf('courses', key), name: c.title, price_cents: c.price_cents };
    }
    if (kind === 'plan') {
      const p = PLANS.find((x) => x.key === key);
      if (!p) throw new Error(`demo data: an order names an unknown plan ${key}`);
      return { kind: 'membership_plan', id: idOf('membership_plans', key), name: p.name, price_cents: p.price_cents };
    }
    const p = PRODUCTS.find((x) => x.key === key);
    if (!p) throw new Error(`demo data: an order names an unknown product ${key}`);
    return { kind: 'digital_product', id: idOf('digital_products', key), name: p.name, price_cents: p.price_cents };
  };
  for (const [i, o] of ORDERS.entries()) {
    if (!students.has(o.student)) throw new Error(`demo data: an order names an unknown student ${o.student}`);
    const items = o.items.map(item);
    const subtotal = items.reduce((sum, it) => sum + it.price_cents, 0);
    const coupon = o.coupon === undefined ? undefined : coupons.get(o.coupon);
    if (o.coupon !== undefined && !coupon) throw new Error(`demo data: an order uses an unknown coupon ${o.coupon}`);
    const paid = ago(o.daysAgo, i);
    rows.orders.push(
      makeRow(
        AREAS.orders,
        String(i + 1).padStart(3, '0'),
        {
          student_id: idOf('students', o.student),
          items,
          total_cents: subtotal - (coupon ? discountCents(coupon, subtotal) : 0),
          currency: SCHOOL.currency,
          coupon_code: o.coupon ?? null,
          status: o.status,
          paid_at: iso(paid),
        },
        paid - 2 * 60_000,
        o.status === 'refunded' ? paid + 3 * DAY : paid,
      ),
    );
  }

  for (const [i, s] of SUBSCRIPTIONS.entries()) {
    const plan = PLANS.find((p) => p.key === s.plan);
    if (!plan || !students.has(s.student)) throw new Error(`demo data: subscription ${s.student}/${s.plan} names an unknown record`);
    const periodStart = now - s.periodStartedDaysAgo * DAY;
    const cancelled = s.cancelledDaysAgo === undefined ? undefined : ago(s.cancelledDaysAgo, i);
    rows.subscriptions.push(
      makeRow(
        AREAS.subscriptions,
        `${s.student}-${s.plan}`,
        {
          student_id: idOf('students', s.student),
          plan_id: idOf('membership_plans', s.plan),
          status: s.status,
          current_period_end: iso(periodStart + (plan.interval === 'year' ? 365 : 30) * DAY),
          cancelled_at: cancelled === undefined ? null : iso(cancelled),
        },
        ago(s.daysAgo, i),
        cancelled ?? periodStart,
      ),
    );
  }

  for (const [i, e] of EVENTS.entries()) {
    const { key, inDays, hour, minutes, attendees, ...values } = e;
    const startsAt = Math.floor((now + inDays * DAY) / DAY) * DAY + hour * HOUR;
    const created = Math.min(now - 3 * DAY, startsAt - 45 * DAY) - i * HOUR;
    rows.events.push(makeRow(AREAS.events, key, { ...values, online_url: e.online_url ?? null, starts_at: iso(startsAt), ends_at: iso(startsAt + minutes * 60_000) }, created));
    for (const [ai, a] of attendees.entries()) {
      const student = typeof a === 'string' ? students.get(a) : undefined;
      if (typeof a === 'string' && !student) throw new Error(`demo data: event ${key} names an unknown student ${a}`);
      const [name, email] = student ? [student.name, student.email] : (a as [string, string]);
      const signedUp = Math.min(created + (ai + 1) * 3 * DAY, Math.min(now, startsAt) - (ai + 1) * HOUR);
      rows.event_attendees.push(
        makeRow(AREAS.event_attendees, `${key}-${ai + 1}`, { event_id: idOf('events', key), student_id: student ? idOf('students', student.key) : null, name, email }, signedUp),
      );
    }
  }

  for (const [i, p] of POSTS.entries()) {
    const { key, daysAgo, publishedDaysAgo, ...values } = p;
    const published = publishedDaysAgo === undefined ? undefined : ago(publishedDaysAgo, i);
    rows.posts.push(
      makeRow(AREAS.posts, key, { ...values, status: published === undefined ? 'draft' : 'published', published_at: published === undefined ? null : iso(published) }, ago(daysAgo, i), published),
    );
  }

  for (const [i, p] of PAGES.entries()) {
    const { daysAgo, ...values } = p;
    rows.pages.push(makeRow(AREAS.pages, p.slug, values, ago(daysAgo, i)));
  }

  for (const [i, f] of FORMS.entries()) {
    const { key, daysAgo, submissions, ...values } = f;
    rows.forms.push(makeRow(AREAS.forms, key, values, ago(daysAgo, i)));
    for (const [si, s] of submissions.entries()) {
      rows.form_submissions.push(makeRow(AREAS.form_submissions, `${key}-${si + 1}`, { form_id: idOf('forms', key), data: s.data }, ago(s.daysAgo, si)));
    }
  }

  for (const [i, c] of COMMENTS.entries()) {
    const [type, key] = c.on.split(':') as ['course' | 'post', string];
    const known = type === 'course' ? courses.has(key) : POSTS.some((p) => p.key === key);
    const student = c.student === undefined ? undefined : students.get(c.student);
    if (!known || (c.student !== undefined && !student)) throw new Error(`demo data: comment ${i + 1} names an unknown record`);
    rows.comments.push(
      makeRow(
        AREAS.comments,
        String(i + 1).padStart(3, '0'),
        {
          target_type: type,
          target_id: idOf(type === 'course' ? 'courses' : 'posts', key),
          author_name: student?.name ?? c.author ?? null,
          student_id: student ? idOf('students', student.key) : null,
          body: c.body,
        },
        ago(c.daysAgo, i),
      ),
    );
  }

  rows.lesson_completions = demoCompletions(rows.enrollments, rows.lessons);
  return rows;
}

/** Tables a record of `area` points at (ref fields and the JSON lists of ids the demo fills). */
function parentsOf(area: AreaDef): string[] {
  const refs = Object.values(area.fields as Fields)
    .filter((f) => f.type === 'ref' && f.ref && f.ref !== area.name && f.ref in AREAS)
    .map((f) => f.ref!);
  if (area.name === 'courses') refs.push('lecturers');
  return refs;
}

/** Every platform table, each after the tables it points at. */
export function platformTables(): string[] {
  const order: string[] = [];
  const visit = (area: AreaDef, path: Set<string>) => {
    if (order.includes(area.name) || path.has(area.name)) return;
    path.add(area.name);
    for (const parent of parentsOf(area)) visit(AREAS[parent as AreaName], path);
    order.push(area.name);
  };
  for (const area of AREA_LIST) visit(area, new Set());
  return order;
}

/** True when the school has no courses and no settings: a fresh installation. */
export async function isPlatformEmpty(store: Store): Promise<boolean> {
  const [courses, school] = await Promise.all([store.records.count('courses', []), store.settings.get('school')]);
  return courses === 0 && school === undefined;
}

/**
 * Empties every platform table (children first). Users, OAuth clients,
 * tokens, sessions, grants, signing keys, settings and files are left alone.
 */
export async function clearPlatform(store: Store): Promise<void> {
  await store.records.clear(['lesson_completions', ...platformTables().reverse()]);
}

/**
 * Writes the demo school: settings, appearance and every area's records,
 * parents before children. The tables should be empty (see clearPlatform):
 * the demo's ids are fixed, so a second seed on top of the first fails.
 */
export async function seedDemo(store: Store, now = Date.now()): Promise<DemoCounts> {
  const rows = buildDemo(now);
  const updated_at = iso(now);
  await Promise.all([store.settings.put('school', { ...SCHOOL, updated_at }, now), store.settings.put('appearance', { ...APPEARANCE, updated_at }, now)]);
  const counts: DemoCounts = {};
  // One row at a time. All of a table's rows at once queued for the pool's few PostgreSQL
  // connections and then for the analytics counters' row locks: on a busy server the last
  // waited longer than DB_ACQUIRE_TIMEOUT_MS for a connection and the seed failed.
  for (const table of platformTables()) {
    const list = rows[table as AreaName] ?? [];
    for (const row of list) await store.records.insert(table, row);
    counts[table] = list.length;
  }
  // After the enrollments and lessons they point at; not an area, so not among the counts.
  for (const row of rows.lesson_completions) await store.records.insert('lesson_completions', row);
  return counts;
}

/** "12 courses, 47 curriculum sections, ..." in the order of areas.ts. */
export function describeCounts(counts: DemoCounts): string {
  return AREA_LIST.filter((a) => counts[a.name] !== undefined)
    .map((a) => `${counts[a.name]} ${a.label}${counts[a.name] === 1 ? '' : 's'}`)
    .join(', ');
}

export const DEMO_SCHOOL_NAME = SCHOOL.name;
